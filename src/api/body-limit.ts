import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { MAX_EVENT_BYTES } from './routes/events.routes.js';
import { MAX_INGEST_BODY_BYTES } from '../core/sources.js';
import { problem } from './problem.js';

const KIB = 1024;

/** What every route without a larger need accepts: admin, subscriptions, replays, retries. */
export const DEFAULT_BODY_LIMIT_BYTES = 64 * KIB;

/**
 * Request body limits by path prefix, the first match wins. Each size is the largest valid
 * request of its routes with room to spare, never the size of what a client could stream:
 * - publish: the event limit it always had (R-IDEMP's record must fit Temporal's payloads);
 * - ingest: the largest body a source may accept (its own `maxBodyBytes` is checked inside);
 * - sources: up to 20 destinations, each with a 16,384-character transformation;
 * - endpoints: one transformation, even written with JSON escapes;
 * - a transformation dry run: a sample event and a transformation;
 * - bulk retries: 1,000 delivery or forward ids.
 */
export const BODY_LIMITS: ReadonlyArray<readonly [prefix: string, bytes: number]> = [
  ['/v1/events', MAX_EVENT_BYTES],
  ['/in/', MAX_INGEST_BODY_BYTES],
  ['/v1/sources', 1024 * KIB],
  ['/v1/endpoints', 128 * KIB],
  ['/v1/transformations', MAX_EVENT_BYTES + 128 * KIB],
  ['/v1/dead-letters', 256 * KIB],
  ['/v1/forwards', 256 * KIB],
];

export function bodyLimitFor(path: string): number {
  for (const [prefix, bytes] of BODY_LIMITS)
    if (path === prefix || path.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`)) return bytes;
  return DEFAULT_BODY_LIMIT_BYTES;
}

function tooLarge(c: Context, maxSize: number) {
  return problem(c, 413, 'payload_too_large', 'The request body is too large', `At most ${maxSize} bytes.`, {
    maxBytes: maxSize,
  });
}

/**
 * One streaming limit in front of every route. A declared Content-Length over the limit is
 * refused unread; a chunked body is counted as it arrives and refused as soon as it passes
 * the limit, so no route ever buffers more than its limit (plus one chunk). The rest of the
 * body is left to @hono/node-server, which drains a bounded amount and closes the socket.
 */
export function requestBodyLimit(limitFor: (path: string) => number = bodyLimitFor): MiddlewareHandler {
  const byLimit = new Map<number, MiddlewareHandler>();
  const middlewareFor = (maxSize: number) => {
    let m = byLimit.get(maxSize);
    if (!m) byLimit.set(maxSize, (m = bodyLimit({ maxSize, onError: (c) => tooLarge(c, maxSize) })));
    return m;
  };
  return async (c, next) => {
    const maxSize = limitFor(c.req.path);
    // Issue 16: a declared length, or a method without a body, is judged from the request
    // line and headers alone. Hono's middleware asks for the body stream first, and under
    // @hono/node-server that builds a web Request over the Node request on every call, which
    // a publish then read its body through. Without it the body is read straight from Node.
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    const declared = c.req.header('content-length');
    if (declared !== undefined && c.req.header('transfer-encoding') === undefined) {
      if (Number.parseInt(declared, 10) > maxSize) return tooLarge(c, maxSize);
      return next();
    }
    return middlewareFor(maxSize)(c, next);
  };
}
