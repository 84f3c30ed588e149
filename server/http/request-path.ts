/**
 * The one reading of a request's path. A path is served only in normal form, the form in which
 * every proxy and this server read it alike: a proxy in front that refuses `/metrics` must not be
 * passed `/.\metrics` or `/x/%2E%2E/metrics` for this server to resolve into `/metrics`.
 */

/** The characters a path may hold as they are (RFC 3986 `pchar` and `/`); anything else must be percent-encoded. */
const PATH_CHARACTERS = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/%]*$/;
/** A percent-escape: `%` and two hex digits. */
const ESCAPE = /%(?:([0-9A-Fa-f]{2})|)/g;
/** Characters that normal form never escapes (RFC 3986's unreserved set). */
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/** The path of a request target: everything before its query (`?`). */
export function requestPath(target: string | undefined): string {
  const url = target ?? '';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/** Why a percent-escape in a path is refused, or null when it is needed and well formed. */
function escapeRefusal(path: string): string | null {
  for (const [, hex] of path.matchAll(ESCAPE)) {
    if (hex === undefined) return 'invalid percent-encoding';
    const code = parseInt(hex, 16);
    if (code === 0x2f) return 'an encoded "/"';
    if (code === 0x5c) return 'an encoded backslash';
    if (code < 0x20 || code === 0x7f) return 'an encoded control character';
    if (UNRESERVED.test(String.fromCharCode(code))) return 'an encoded letter, digit, "-", ".", "_" or "~"';
  }
  try {
    decodeURIComponent(path);
    return null;
  } catch {
    return 'invalid percent-encoding';
  }
}

/**
 * Why `path` (see {@link requestPath}) is not in normal form, or null when it is. Normal form:
 * it starts with `/`; it holds no backslash and no other character that must be escaped (spaces,
 * controls, `"<>^{|}` and `` ` ``, raw non-ASCII); each escape is `%` and two hex digits, decodes
 * with the others to UTF-8, and escapes neither `/`, a backslash, a control character nor a
 * character that needs no escape (`%2E`, `%41`); no segment is empty (`//`) except a trailing
 * one, and none is `.` or `..`.
 */
export function pathRefusal(path: string): string | null {
  if (!path.startsWith('/')) return 'it does not start with "/"';
  if (path.includes('\\')) return 'a backslash';
  if (!PATH_CHARACTERS.test(path)) return 'a character that must be percent-encoded';
  const escapes = escapeRefusal(path);
  if (escapes) return escapes;
  const segments = path.slice(1).split('/');
  if (segments.slice(0, -1).includes('')) return 'an empty segment ("//")';
  if (segments.some((segment) => segment === '.' || segment === '..')) return 'a dot segment ("." or "..")';
  return null;
}

/** The body of the 400 that refuses a path {@link pathRefusal} refuses. */
export function pathRefusalBody(reason: string): { code: string; message: string } {
  return { code: 'invalid_path', message: `The request path is not in normal form: ${reason}` };
}
