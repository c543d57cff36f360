/**
 * A web server's directory listing page, recognised by its title: read as a folder's file names
 * when a link names the folder (src/state/folder-listing.ts), and told apart from a result file
 * when a link names the folder without its trailing `/`.
 */
export type ListingServer = 'nginx' | 'apache' | 'python';

/** Which server wrote a listing page, from its title; null for any other text. */
export function listingServer(html: string): ListingServer | null {
  const title = /<title>([^<]{0,500})<\/title>/i.exec(html)?.[1] ?? '';
  if (/^Directory listing for \//.test(title)) return 'python';
  // nginx titles the folder with its trailing slash; Apache without, and signs or sorts its listing.
  if (/^Index of \//.test(title)) return title.endsWith('/') && !/<address>Apache|\?C=N;O=D/.test(html) ? 'nginx' : 'apache';
  return null;
}
