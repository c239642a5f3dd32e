/**
 * Where the page goes back to after signing in: the page that asked for it (a deep link opened signed out, a
 * page whose session ended), carried in the sign-in address as `?next=` so a reload keeps it. Only a path on
 * this site is followed; anything else (another origin, `//host`, a `javascript:` URL) lands on the board.
 */
const board = '/routes';

/** The sign-in address for a page at `path` + `search`: its own address as `next`, any `error=` kept. */
export function signInAddress(path: string, search: string): string {
  const params = new URLSearchParams();
  const error = new URLSearchParams(search).get('error');
  if (error !== null) params.set('error', error);
  if (path !== '/' && path !== '/sign-in') params.set('next', path + search);
  const text = params.toString();
  return text === '' ? '/sign-in' : `/sign-in?${text}`;
}

/** The validated `next` of a sign-in address's query, or the board. */
export function returnAddress(search: URLSearchParams, origin: string): string {
  const next = search.get('next');
  if (next === null || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return board;
  let url: URL;
  try {
    url = new URL(next, origin);
  } catch {
    return board;
  }
  if (url.origin !== origin || url.pathname === '/' || url.pathname === '/sign-in') return board;
  return url.pathname + url.search + url.hash;
}
