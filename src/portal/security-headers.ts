import type { MiddlewareHandler } from 'hono';
import type { Config } from '../config.js';

/**
 * Issue 18: a strict Content-Security-Policy on every portal page (no inline script or
 * style, nothing from elsewhere), framing only by the origins the operator names, and no
 * Referer, so a portal link's token never leaks to a page it links to.
 */
export function portalCsp(config: Config): string {
  const ancestors = ["'self'", ...config.HERALD_PORTAL_FRAME_ANCESTORS].join(' ');
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    `frame-ancestors ${ancestors}`,
  ].join('; ');
}

export function portalHeaders(config: Config): MiddlewareHandler {
  const csp = portalCsp(config);
  return async (c, next) => {
    await next();
    c.header('Content-Security-Policy', csp);
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'no-referrer');
    if (!c.req.path.includes('/assets/')) c.header('Cache-Control', 'no-store');
  };
}
