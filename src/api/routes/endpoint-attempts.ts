import { createRoute, z } from '@hono/zod-openapi';
import type { AttemptRecord } from '../../shared/delivery-types.js';
import type { TenantEnv } from '../auth.js';
import { lit } from '../directory.js';
import { fail } from '../problem.js';
import { problemResponse, router } from '../openapi.js';
import { idParam } from '../schemas.js';
import {
  deliveriesQuery,
  deliveryState,
  mapLimit,
  newestDeliveries,
  type DeliveryRef,
  type RouterDeps,
} from './deliveries.js';

/**
 * Deliveries of the endpoint one page reads (its newest by creation). An attempt can come
 * long after its delivery was created (a retry, a replay), and visibility indexes no attempt
 * time, so every page reads the attempt logs of these deliveries and sorts the attempts
 * itself; past this many, `truncated` says older deliveries were not read.
 */
export const ATTEMPTS_SCAN_LIMIT = 1000;
const READ_CONCURRENCY = 16;

const attemptRowSchema = z
  .object({
    deliveryId: z.string(),
    eventId: z.string(),
    eventType: z.string(),
    /** `refused`: nothing was sent (R-SSRF, R-URL at send time); it still failed. */
    kind: z.enum(['attempt', 'refused']),
    attempt: z.number().int().openapi({ description: 'Attempt number within its round, from 1' }),
    round: z.number().int(),
    startedAt: z.string(),
    finishedAt: z.string(),
    latencyMs: z.number(),
    result: z.enum(['succeeded', 'failed']),
    httpStatus: z.number().int().optional(),
    code: z.string().optional().openapi({ description: 'R-ERRCODES code of a failed attempt' }),
    responseBody: z.string().optional().openapi({ description: 'First 512 bytes of the response (R-RESP)' }),
    responseBodyEncoding: z
      .literal('base64')
      .optional()
      .openapi({ description: 'Set when the response bytes were not UTF-8: responseBody is their base64' }),
    detail: z.string().optional(),
    replay: z.boolean().optional().openapi({ description: 'Sent by a window replay (R-BIRD-REPLAY)' }),
  })
  .openapi('EndpointAttempt');

const pageSchema = z
  .object({
    data: z.array(attemptRowSchema),
    /** Pass as `cursor` for the next (older) page; null on the last page. */
    nextCursor: z.string().nullable(),
    /** The endpoint has more deliveries than one page reads: older ones' attempts are missing. */
    truncated: z.boolean(),
  })
  .openapi('EndpointAttemptPage');

const listQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().max(512).optional().openapi({ description: 'nextCursor of the previous page' }),
});

type Row = z.infer<typeof attemptRowSchema>;
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

  app.openapi(
    createRoute({
      method: 'get',
      path: '/{id}/attempts',
      summary:
        "The endpoint's attempts across its deliveries, newest first: result, status or error code, latency; " +
        'paginated with nextCursor',
      request: { params: idParam('ep'), query: listQuery },
      responses: {
        200: { description: 'One page of attempts', content: { 'application/json': { schema: pageSchema } } },
        400: problemResponse('Invalid id, limit or cursor'),
        404: problemResponse('No such endpoint'),
      },
    }),
    async (c) => {
      const tenantId = c.get('tenantId');
      const { id } = c.req.valid('param');
      const { limit, cursor } = c.req.valid('query');
      const after = cursor === undefined ? undefined : decodeCursor(cursor);
      // Another tenant's endpoint and a missing one look the same.
      if (!(await directory.endpoint(tenantId, id))) fail(404, 'endpoint_not_found', 'No such endpoint');

      const refs = await newestDeliveries(
        client,
        deliveriesQuery(tenantId, `HeraldEndpoint = ${lit(id)}`),
        ATTEMPTS_SCAN_LIMIT,
      );
      const perDelivery = await mapLimit(refs, READ_CONCURRENCY, async (ref) => {
        const s = await deliveryState(client, ref.id);
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
    },
  );

  return app;
}
