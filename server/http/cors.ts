import type { IncomingMessage, ServerResponse } from 'node:http';

const ALLOWED_HEADERS = [
  'apikey', 'authorization', 'x-client-info', 'content-type', 'prefer', 'accept', 'accept-profile',
  'content-profile', 'range', 'x-supabase-api-version', 'x-retry-count', 'traceparent', 'tracestate', 'baggage',
].join(', ');

/**
 * Adds the CORS headers the browser needs for the Supabase APIs and answers preflights.
 * Returns true when the request was a preflight and has been answered.
 */
export function applyCors(req: IncomingMessage, res: ServerResponse): boolean {
  res.setHeader('Access-Control-Allow-Origin', req.headers.origin ?? '*');
  res.setHeader('Vary', 'Origin');
  res.setHeader('Access-Control-Expose-Headers', 'Content-Range, Content-Location, Preference-Applied, X-Supabase-Api-Version');
  if (req.method !== 'OPTIONS') return false;
  res.writeHead(204, {
    'Access-Control-Allow-Methods': 'GET, HEAD, POST, PATCH, PUT, DELETE, OPTIONS',
    'Access-Control-Allow-Headers': req.headers['access-control-request-headers'] ?? ALLOWED_HEADERS,
    'Access-Control-Max-Age': '86400',
  });
  res.end();
  return true;
}
