// Issue 20: publish and ingest requests, counted and timed by answer code; a publish is also
// the root span of its trace when tracing is on. One middleware, first in the API's chain.
import type { MiddlewareHandler } from 'hono';
import { heraldMetrics, type HeraldMetrics } from './metrics.js';
import { inSpan } from './tracing.js';

/** The route a request counts under, or undefined for the ones not measured. */
export function measuredRoute(method: string, path: string): 'publish' | 'ingest' | undefined {
  if (method !== 'POST') return undefined;
  if (path === '/v1/events' || path === '/v1/events/') return 'publish';
  if (path.startsWith('/in/')) return 'ingest';
  return undefined;
}

export function requestObservability(metrics: HeraldMetrics = heraldMetrics): MiddlewareHandler {
  return async (c, next) => {
    const route = measuredRoute(c.req.method, c.req.path);
    if (!route) return next();
    const started = performance.now();
    // The span's name is the route, never the URL: an ingest URL is its source's credential.
    await inSpan(route === 'publish' ? 'POST /v1/events' : 'POST /in/{id}', { 'herald.route': route }, () =>
      next(),
    );
    const labels = { route, code: String(c.res.status) };
    metrics.apiRequests.inc(labels);
    metrics.apiDuration.observe(labels, (performance.now() - started) / 1000);
  };
}
