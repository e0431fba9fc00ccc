import { createRoute, z } from '@hono/zod-openapi';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { DeliveryState } from '../../shared/delivery-types.js';
import { NOT_A_DEAD_LETTER, retryDeadLetterUpdate } from '../../shared/messages.js';
import type { TenantEnv } from '../auth.js';
import { lit } from '../directory.js';
import { ProblemError, fail } from '../problem.js';
import { problemResponse, router } from '../openapi.js';
import {
  attemptCount,
  deliveriesQuery,
  deliveryIdSchema,
  deliveryParams,
  deliverySchema,
  deliveryState,
  endpointIdSchema,
  lastError,
  listAll,
  mapLimit,
  newestDeliveries,
  ownedDelivery,
  presentState,
  updateFailureType,
  type RouterDeps,
} from './deliveries.js';

/** Most dead letters one bulk retry takes on. */
export const BULK_RETRY_LIMIT = 1000;

const deadLetterSchema = z
  .object({
    id: z.string(),
    endpointId: z.string(),
    eventType: z.string(),
    eventId: z.string(),
    createdAt: z.string(),
    attemptCount: z.number(),
    lastError: z.string().nullable(),
    /** False once the delivery's replay window closed (Smengo closes at once). */
    retryable: z.boolean(),
  })
  .openapi('DeadLetter');

const bulkSchema = z
  .union([
    z.strictObject({ ids: z.array(deliveryIdSchema).min(1).max(BULK_RETRY_LIMIT) }),
    z.strictObject({ all: z.literal(true) }),
  ])
  .openapi('BulkRetry');

const bulkResult = z
  .object({
    retried: z.array(z.string()),
    failed: z.array(z.object({ id: z.string(), code: z.string() })),
  })
  .openapi('BulkRetryResult');

/**
 * R-RH-DLQ: retry a dead letter. The same delivery goes back to `pending` with 3 more
 * attempts, keeping its id, attempt log and Idempotency-Key; the first one is immediate.
 */
export async function retryDeadLetter(
  client: Client,
  tenantId: string,
  id: string,
): Promise<ReturnType<typeof presentState>> {
  const { ref } = await ownedDelivery(client, tenantId, id);
  const closed = () =>
    fail(
      409,
      'not_retryable',
      'This delivery can no longer be retried',
      ref.preset === 'smengo'
        ? 'This endpoint offers no manual retry; read the event back through the events API.'
        : 'Its retry window has closed.',
    );
  if (!ref.open) closed();
  let state: DeliveryState;
  try {
    state = await client.workflow.getHandle(id).executeUpdate(retryDeadLetterUpdate);
  } catch (err) {
    if (updateFailureType(err) === NOT_A_DEAD_LETTER)
      fail(
        409,
        'not_a_dead_letter',
        'This delivery is not a dead letter',
        'Only an exhausted delivery can be retried.',
      );
    if (err instanceof WorkflowNotFoundError) closed();
    throw err;
  }
  return presentState(ref, state);
}

export function deadLettersRouter(deps: RouterDeps) {
  const app = router<TenantEnv>();
  const { client } = deps;

  app.openapi(
    createRoute({
      method: 'get',
      path: '/',
      summary:
        'Dead letters (exhausted deliveries), newest first: endpoint, event type, attempt count, last error',
      request: {
        query: z.object({
          endpointId: endpointIdSchema.optional(),
          limit: z.coerce.number().int().min(1).max(500).default(100),
        }),
      },
      responses: {
        200: {
          description: 'Dead letters',
          content: { 'application/json': { schema: z.object({ data: z.array(deadLetterSchema) }) } },
        },
        400: problemResponse('Invalid filter'),
      },
    }),
    async (c) => {
      const tenantId = c.get('tenantId');
      const { endpointId, limit } = c.req.valid('query');
      const query = deliveriesQuery(
        tenantId,
        `HeraldStatus = 'exhausted'`,
        endpointId && `HeraldEndpoint = ${lit(endpointId)}`,
      );
      const refs = await newestDeliveries(client, query, limit);
      const rows = await mapLimit(refs, 16, async (ref) => {
        const s = await deliveryState(client, ref.id);
        // Visibility lags: a delivery retried a moment ago is no longer a dead letter.
        if (!s || s.status !== 'exhausted') return undefined;
        return {
          id: ref.id,
          endpointId: ref.endpointId,
          eventType: ref.eventType,
          eventId: ref.eventId,
          createdAt: ref.createdAt,
          attemptCount: attemptCount(s),
          lastError: lastError(s) ?? null,
          retryable: ref.open,
        };
      });
      return c.json({ data: rows.filter((r) => r !== undefined) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/retry',
      summary: `Retry many dead letters: {ids} (at most ${BULK_RETRY_LIMIT}) or {all: true}`,
      request: { body: { content: { 'application/json': { schema: bulkSchema } }, required: true } },
      responses: {
        202: {
          description: 'Retried; the rest with the reason',
          content: { 'application/json': { schema: bulkResult } },
        },
        400: problemResponse('Invalid body'),
      },
    }),
    async (c) => {
      const tenantId = c.get('tenantId');
      const body = c.req.valid('json');
      const ids =
        'ids' in body
          ? [...new Set(body.ids)]
          : (
              await listAll(
                client,
                deliveriesQuery(tenantId, `HeraldStatus = 'exhausted'`, `ExecutionStatus = 'Running'`),
                BULK_RETRY_LIMIT,
              )
            ).map((r) => r.id);
      const retried: string[] = [];
      const failed: Array<{ id: string; code: string }> = [];
      await mapLimit(ids, 8, async (id) => {
        try {
          await retryDeadLetter(client, tenantId, id);
          retried.push(id);
        } catch (err) {
          if (!(err instanceof ProblemError)) {
            console.error('[herald:api] dead-letter retry failed', id, err);
            failed.push({ id, code: 'internal_error' });
          } else failed.push({ id, code: err.code });
        }
      });
      return c.json({ retried, failed }, 202);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/{id}/retry',
      summary: 'Retry one dead letter: same delivery, 3 more attempts, the first at once',
      request: { params: deliveryParams },
      responses: {
        202: { description: 'Back to pending', content: { 'application/json': { schema: deliverySchema } } },
        404: problemResponse('No such delivery'),
        409: problemResponse('Not a dead letter, or no longer retryable'),
      },
    }),
    async (c) => c.json(await retryDeadLetter(client, c.get('tenantId'), c.req.valid('param').id), 202),
  );

  return app;
}
