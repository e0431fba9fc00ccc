import type { RouteHandler, z } from '@hono/zod-openapi';
import type { AttemptRecord } from '../../shared/delivery-types.js';
import { boundedMap } from '../../shared/bounded-map.js';
import { SA_ENDPOINT } from '../../shared/search-attributes.js';
import {
  deliveriesQuery,
  deliveryState,
  newestDeliveries,
  type DeliveryRef,
} from '../../store/deliveries.js';
import { eq } from '../../store/visibility.js';
import type { TenantEnv } from '../auth.js';
import { router } from '../openapi.js';
import { fail } from '../problem.js';
import type { RouterDeps } from '../router-deps.js';
import * as routes from './endpoint-attempts.routes.js';

/**
 * Deliveries of the endpoint one page reads (its newest by creation). An attempt can come
 * long after its delivery was created (a retry, a replay), and visibility indexes no attempt
 * time, so every page reads the attempt logs of these deliveries and sorts the attempts
 * itself; past this many, `truncated` says older deliveries were not read.
 */
export const ATTEMPTS_SCAN_LIMIT = 1000;
const READ_CONCURRENCY = 16;

type Row = z.infer<typeof routes.attemptRowSchema>;
/** Newest first: attempt start, then delivery id, then position in the delivery's log. */
type Key = { t: number; d: string; i: number };

const before = (a: Key, b: Key) => a.t > b.t || (a.t === b.t && (a.d > b.d || (a.d === b.d && a.i > b.i)));

const encodeCursor = (k: Key) => Buffer.from(JSON.stringify([k.t, k.d, k.i])).toString('base64url');

function decodeCursor(raw: string): Key {
  try {
    const v: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (
      Array.isArray(v) &&
      v.length === 3 &&
      Number.isSafeInteger(v[0]) &&
      typeof v[1] === 'string' &&
      Number.isSafeInteger(v[2])
    )
      return { t: v[0] as number, d: v[1], i: v[2] as number };
  } catch {
    // Falls through to the problem below.
  }
  return fail(400, 'invalid_cursor', 'The cursor is not one this listing gave out', undefined, {
    path: 'cursor',
  });
}

/** Rows that are HTTP requests (or refusals to send one); deferrals and lease losses are not. */
const isSend = (a: AttemptRecord): a is AttemptRecord & { kind: 'attempt' | 'refused' } =>
  a.kind === 'attempt' || a.kind === 'refused';

function rowsOf(
  ref: DeliveryRef,
  eventId: string,
  log: readonly AttemptRecord[],
): Array<{ key: Key; row: Row }> {
  const out: Array<{ key: Key; row: Row }> = [];
  log.forEach((a, i) => {
    if (!isSend(a)) return;
    out.push({
      key: { t: Date.parse(a.startedAt), d: ref.id, i },
      row: {
        deliveryId: ref.id,
        eventId,
        eventType: ref.eventType,
        kind: a.kind,
        attempt: a.attempt,
        round: a.round,
        startedAt: a.startedAt,
        finishedAt: a.finishedAt,
        latencyMs: a.latencyMs,
        result: a.code === undefined && a.kind === 'attempt' ? 'succeeded' : 'failed',
        ...(a.httpStatus !== undefined ? { httpStatus: a.httpStatus } : {}),
        ...(a.code !== undefined ? { code: a.code } : {}),
        ...(a.responseBody !== undefined ? { responseBody: a.responseBody } : {}),
        ...(a.responseBodyEncoding ? { responseBodyEncoding: a.responseBodyEncoding } : {}),
        ...(a.detail !== undefined ? { detail: a.detail } : {}),
        ...(a.replay ? { replay: true } : {}),
      },
    });
  });
  return out;
}

/**
 * Issue 14.8, R-BIRD-REPLAY's attempts listing (the seed's `listWebhookAttempts`): every
 * attempt made to one endpoint across its deliveries, newest first, with its result and
 * latency. Offered under every preset: the attempt log it reads is R-RESP's, common to all
 * (SPEC §2), and it shows nothing the per-delivery view does not; Bird is the preset whose
 * recovery leans on it, having no dead-letter list.
 */
export function endpointAttemptsRouter(deps: RouterDeps) {
  const app = router<TenantEnv>();
  const { client, directory } = deps;

  const listAttempts: RouteHandler<typeof routes.listAttempts, TenantEnv> = async (c) => {
    const tenantId = c.get('tenantId');
    const { id } = c.req.valid('param');
    const { limit, cursor } = c.req.valid('query');
    const after = cursor === undefined ? undefined : decodeCursor(cursor);
    // Another tenant's endpoint and a missing one look the same.
    if (!(await directory.endpoint(tenantId, id))) fail(404, 'endpoint_not_found', 'No such endpoint');

    const refs = await newestDeliveries(
      client,
      deliveriesQuery(tenantId, eq(SA_ENDPOINT, id)),
      ATTEMPTS_SCAN_LIMIT,
    );
    const perDelivery = await boundedMap(refs, READ_CONCURRENCY, async (ref) => {
      const s = await deliveryState(client, ref.id, ref);
      return s ? rowsOf(ref, s.eventId, s.attempts) : [];
    });
    const all = perDelivery
      .flat()
      .filter((r) => after === undefined || before(after, r.key))
      .sort((a, b) => (before(a.key, b.key) ? -1 : before(b.key, a.key) ? 1 : 0));
    const page = all.slice(0, limit);
    const last = page[page.length - 1];
    return c.json(
      {
        data: page.map((r) => r.row),
        nextCursor: all.length > limit && last ? encodeCursor(last.key) : null,
        truncated: refs.length >= ATTEMPTS_SCAN_LIMIT,
      },
      200,
    );
  };

  app.openapi(routes.listAttempts, listAttempts);
  return app;
}
