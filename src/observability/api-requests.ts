// Issue 20: publish and ingest requests, counted and timed by answer code; a publish is also
// the root span of its trace when tracing is on. One middleware, first in the API's chain.
import type { Context, MiddlewareHandler } from 'hono';
import { log, logEnabled } from './log.js';
import { heraldMetrics, type HeraldMetrics } from './metrics.js';
import { inSpan } from './tracing.js';

/** The route a request counts under, or undefined for the ones not measured. */
export function measuredRoute(method: string, path: string): 'publish' | 'ingest' | undefined {
  if (method !== 'POST') return undefined;
  if (path === '/v1/events' || path === '/v1/events/') return 'publish';
  if (path.startsWith('/in/')) return 'ingest';
  return undefined;
}

/** The route's template (`/v1/endpoints/:id`), never the URL: an ingest URL is its source's credential. */
function routeTemplate(c: Context): string {
  const routes = c.req.matchedRoutes.filter((r) => r.method !== 'ALL');
  return routes[routes.length - 1]?.path ?? 'unmatched';
}

export function requestObservability(metrics: HeraldMetrics = heraldMetrics): MiddlewareHandler {
  return async (c, next) => {
    const route = measuredRoute(c.req.method, c.req.path);
    const debug = logEnabled('debug');
    if (!route && !debug) return next();
    const started = performance.now();
    // The span's name is the route, never the URL (see routeTemplate).
    if (route)
      await inSpan(route === 'publish' ? 'POST /v1/events' : 'POST /in/{id}', { 'herald.route': route }, () =>
        next(),
      );
    else await next();
    const seconds = (performance.now() - started) / 1000;
    if (route) {
      const labels = { route, code: String(c.res.status) };
      metrics.apiRequests.inc(labels);
      metrics.apiDuration.observe(labels, seconds);
    }
    // An access line at debug: method, route template, answer, time and the tenant, nothing
    // from the request itself.
    if (debug)
      log.debug('request', {
        method: c.req.method,
        route: routeTemplate(c),
        status: c.res.status,
        ms: Math.round(seconds * 1000),
        tenant: (c.get as (k: string) => unknown)('tenantId') as string | undefined,
      });
  };
}
