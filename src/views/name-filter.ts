/**
 * A filter box's text as a test on names: a substring (any case), or `/regex/` (flags after the
 * last slash). A pattern that does not compile matches everything and says why.
 */
export function nameFilter(text: string): { test: (name: string) => boolean; error: string | null } {
  const trimmed = text.trim();
  const m = /^\/(.+)\/([a-z]*)$/.exec(trimmed);
  if (m) {
    try {
      const re = new RegExp(m[1] as string, (m[2] as string).replace(/[gy]/g, ''));
      return { test: (name) => re.test(name), error: null };
    } catch (e) {
      return { test: () => true, error: `not a regular expression: ${e instanceof Error ? e.message : String(e)}` };
    }
  }
  const needle = trimmed.toLowerCase();
  return { test: (name) => name.toLowerCase().includes(needle), error: null };
}
