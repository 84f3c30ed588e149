/**
 * The site this server signs players in for: its public origin (`SITE_URL`) and the URLs a
 * Sign-In-With-Solana message may name (`ADDITIONAL_REDIRECT_URLS`, the Supabase CLI's name).
 * Nothing here is taken from a request, so a `Host` header cannot change the token issuer,
 * `/config.json` or which signed messages are accepted.
 */

/** What the operator configured; both optional. */
export interface SiteSettings {
  /** The public URL of the game, e.g. `https://tessera.example`. */
  siteUrl?: string;
  /** Further URLs sign-in messages may name; `*` matches within a host label or path segment, `**` anything. */
  additionalRedirectUrls?: string[];
}

/** The resolved site. */
export interface Site {
  /** The public origin: the Supabase URL the client is given and the base of the token issuer. */
  origin: string;
  /** Whether a sign-in message's URI belongs to this site or to the allow-list. */
  allows(uri: URL): boolean;
}

/** Thrown for a setting the server cannot start with; the message names it. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

function httpUrl(name: string, value: string): URL {
  const url = URL.canParse(value) ? new URL(value) : null;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new ConfigError(`${name} must be an http:// or https:// URL, got ${JSON.stringify(value)}`);
  }
  return url;
}

/** A URL without wildcards allows its own origin, at its path or below. */
function prefixMatcher(entry: URL): (uri: URL) => boolean {
  const base = entry.pathname.endsWith('/') ? entry.pathname : `${entry.pathname}/`;
  return (uri) => uri.origin === entry.origin && (uri.pathname === entry.pathname || uri.pathname.startsWith(base));
}

/** A pattern with `*` (no `.` or `/` crossed), `**` (anything) and `?` (one character) matches the whole URI but its fragment. */
function globMatcher(pattern: string): (uri: URL) => boolean {
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    if (char === '*' && pattern[i + 1] === '*') {
      source += '.*';
      i++;
    } else if (char === '*') source += '[^./]*';
    else if (char === '?') source += '[^./]';
    else source += char.replace(/[\\^$.|+()[\]{}]/g, '\\$&');
  }
  const regex = new RegExp(`^${source}$`);
  return (uri) => regex.test(uri.href.split('#')[0]!);
}

/**
 * Resolves the site from `settings` and the port the server listens on. Without `siteUrl`
 * the site is `http://localhost:<port>`, and `http://127.0.0.1:<port>` and
 * `http://[::1]:<port>` are allowed too. Throws {@link ConfigError} for a malformed URL.
 */
export function resolveSite(settings: SiteSettings, port: number): Site {
  const site = settings.siteUrl
    ? httpUrl('SITE_URL', settings.siteUrl)
    : new URL(`http://localhost:${port}`);
  const entries = settings.siteUrl
    ? [site.href]
    : [`http://localhost:${port}`, `http://127.0.0.1:${port}`, `http://[::1]:${port}`];
  entries.push(...(settings.additionalRedirectUrls ?? []));
  const matchers = entries.map((entry) =>
    entry.includes('*') || entry.includes('?') ? globMatcher(entry) : prefixMatcher(httpUrl('ADDITIONAL_REDIRECT_URLS', entry)),
  );
  return {
    origin: site.origin,
    allows: (uri) => !uri.username && !uri.password && matchers.some((matches) => matches(uri)),
  };
}

/**
 * Throws {@link ConfigError} when a node of a cluster (`clustered`: REDIS_URL set) has no
 * SITE_URL: without one each node would sign players in for its own address, and a message
 * signed for the address players open (the balancer's) would be refused by every node.
 */
export function requireSharedSite(settings: SiteSettings, clustered: boolean): void {
  if (clustered && !settings.siteUrl) {
    throw new ConfigError('REDIS_URL needs SITE_URL: every node of a cluster signs players in for the one public URL they open (the balancer\'s)');
  }
}
