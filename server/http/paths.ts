/** The rest of `pathname` below `prefix` (`''` for the prefix itself), or null when it is not below it. */
export function pathUnder(pathname: string, prefix: string): string | null {
  if (pathname === prefix) return '';
  return pathname.startsWith(`${prefix}/`) ? pathname.slice(prefix.length) : null;
}
