/** Whether the reader's system prefers dark colours, followed as it changes (a page with no `theme` of its own shows those). */

const DARK = '(prefers-color-scheme: dark)';

export function subscribeToSystemTheme(onChange: () => void): () => void {
  if (typeof matchMedia !== 'function') return () => {};
  const query = matchMedia(DARK);
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
}

export function systemPrefersDark(): boolean {
  return typeof matchMedia === 'function' && matchMedia(DARK).matches;
}
