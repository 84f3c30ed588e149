import type { ServerResponse } from 'node:http';

/**
 * The Content-Security-Policy of every answer: exactly what the game loads. Scripts, styles and
 * the font come from this origin; React sets `style` attributes (health bar width, colour
 * swatches); voice clips play from `data:` (and `blob:`) URLs; the backend is this origin (REST
 * and the Realtime websocket) or, in a hosted build, `backendUrl` and its websocket; the web app
 * manifest and the service worker come from this origin (`pwa/`). Nothing
 * may frame the page, and no plugin, `<base>` or form target is allowed.
 */
export function contentSecurityPolicy(backendUrl?: string): string {
  const connect = ["'self'"];
  if (backendUrl) {
    const origin = new URL(backendUrl).origin;
    connect.push(origin, origin.replace(/^http/, 'ws'));
  }
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "style-src-attr 'unsafe-inline'",
    "font-src 'self'",
    "manifest-src 'self'",
    "worker-src 'self'",
    "img-src 'self' data:",
    "media-src 'self' data: blob:",
    `connect-src ${connect.join(' ')}`,
    "base-uri 'none'",
    "form-action 'none'",
    "object-src 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Sets the security headers every answer carries, API and static alike. */
export function applySecurityHeaders(res: ServerResponse, csp: string): void {
  res.setHeader('Content-Security-Policy', csp);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
}
