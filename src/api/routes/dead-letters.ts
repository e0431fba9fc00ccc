import { createRoute, z } from '@hono/zod-openapi';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { presetsOffering, recoveryOf } from '../../policy/policy.js';
import type { DeliveryState } from '../../shared/delivery-types.js';
import { NOT_A_DEAD_LETTER, retryDeadLetterUpdate } from '../../shared/messages.js';
import type { TenantEnv } from '../auth.js';
import { eq } from '../../store/visibility.js';
import { SA_ENDPOINT } from '../../shared/search-attributes.js';
import { ProblemError, fail } from '../problem.js';
import { boundedMap, tryEach } from '../../shared/bounded-map.js';
import { problemResponse, router } from '../openapi.js';
import {
  deliveriesQuery,
  deliveryState,
  listAll,
  newestDeliveries,
  ownedDelivery,
  presetIn,
  updateFailureType,
} from '../../store/deliveries.js';
import { attemptCount, lastError, presentState } from '../../shared/delivery-view.js';
import { deliveryIdSchema, deliveryParams, deliverySchema, endpointIdSchema } from '../delivery-schemas.js';
import type { RouterDeps } from '../router-deps.js';

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
 * Issue 14.6: a preset without a dead-letter list (Bird: "nie udostępnia osobnej kolejki
 * nieudanych zdarzeń") answers every dead-letter request with this, pointing at what it offers
 * instead: the endpoint's attempts and a window replay.
 */
function deadLettersNotOffered(endpointId: string, preset: string | undefined): never {
  fail(
    409,
    'dead_letters_not_offered',
    'This endpoint has no dead-letter list',
    `Its preset (${preset ?? 'unknown'}) keeps no separate list of failed deliveries. Read its attempts with ` +
      `GET /v1/endpoints/${endpointId}/attempts and resend the failures with POST /v1/replay/window ` +
      `{"endpointId":"${endpointId}"} (since and until optional).`,
    {
      endpointId,
      ...(preset ? { preset } : {}),
      replay: { method: 'POST', href: '/v1/replay/window', body: { endpointId } },
      attempts: { method: 'GET', href: `/v1/endpoints/${endpointId}/attempts` },
    },
  );
}

/** Dead letters shown by the list: only presets that keep one (SPEC §3 "manual recovery"). */
const listedPresets = () => presetIn(presetsOffering((o) => o.deadLetterList));

/**
 * R-RH-DLQ: retry a dead letter. The same delivery goes back to `pending` with 3 more
 * attempts, keeping its id, attempt log and Idempotency-Key; the first one is immediate.
 */
export async function retryDeadLetter(
  client: Client,
  tenantId: string,
  id: string,
): Promise<ReturnType<typeof presentState>> {
  const { ref } =
    (await ownedDelivery(client, tenantId, id)) ?? fail(404, 'delivery_not_found', 'No such delivery');
  const offer = recoveryOf(ref.preset);
  if (!offer.deadLetterList) deadLettersNotOffered(ref.endpointId, ref.preset);
  const closed = () =>
    fail(
      409,
      'not_retryable',
      'This delivery can no longer be retried',
      !offer.deadLetterRetry
        ? offer.deliveryReplay !== 'none'
          ? `This endpoint offers no dead-letter retry; replay it with POST /v1/replay/deliveries/${id}.`
          : 'This endpoint offers no manual retry; read the event back through the events API.'
        : 'Its retry window has closed.',
    );
  if (!offer.deadLetterRetry || !ref.open) closed();
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
        'Dead letters (exhausted deliveries), newest first: endpoint, event type, attempt count, last error. ' +
        'Endpoints whose preset keeps no dead-letter list (bird) are left out; naming one is a 409 ' +
        '`dead_letters_not_offered` pointing at window replay',
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
        409: problemResponse('The endpoint keeps no dead-letter list (`dead_letters_not_offered`)'),
      },
    }),
    async (c) => {
      const tenantId = c.get('tenantId');
      const { endpointId, limit } = c.req.valid('query');
      if (endpointId) {
        // Another tenant's endpoint and a missing one just list nothing, as before.
        const preset = (await deps.directory.endpoint(tenantId, endpointId))?.config.preset;
        if (preset && !recoveryOf(preset).deadLetterList) deadLettersNotOffered(endpointId, preset);
      }
      const query = deliveriesQuery(
        tenantId,
        `HeraldStatus = 'exhausted'`,
        listedPresets(),
        endpointId && eq(SA_ENDPOINT, endpointId),
      );
      const refs = await newestDeliveries(client, query, limit);
      const rows = await boundedMap(refs, 16, async (ref) => {
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
          retryable: ref.open && recoveryOf(ref.preset).deadLetterRetry,
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
                deliveriesQuery(
                  tenantId,
                  `HeraldStatus = 'exhausted'`,
                  `ExecutionStatus = 'Running'`,
                  presetIn(presetsOffering((o) => o.deadLetterRetry)),
                ),
                BULK_RETRY_LIMIT,
              )
            ).map((r) => r.id);
      const { done: retried, failed } = await tryEach(
        ids,
        8,
        async (id) => (await retryDeadLetter(client, tenantId, id), id),
        {
          codeOf: (e) => (e instanceof ProblemError ? e.code : undefined),
          idOf: (id) => id,
          what: 'dead-letter retry',
        },
      );
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
        409: problemResponse(
          'Not a dead letter, no longer retryable, or its endpoint keeps no dead-letter list (`dead_letters_not_offered`)',
        ),
      },
    }),
    async (c) => c.json(await retryDeadLetter(client, c.get('tenantId'), c.req.valid('param').id), 202),
  );

  return app;
}
