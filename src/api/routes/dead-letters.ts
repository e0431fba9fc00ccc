import { createRoute, z } from '@hono/zod-openapi';
import { presetsOffering, recoveryOf } from '../../policy/policy.js';
import type { TenantEnv } from '../auth.js';
import { eq } from '../../store/visibility.js';
import { SA_ENDPOINT } from '../../shared/search-attributes.js';
import { boundedMap } from '../../shared/bounded-map.js';
import { problemResponse, router } from '../openapi.js';
import { orProblem, orProblemNow } from '../refusal-problem.js';
import {
  BULK_RETRY_LIMIT,
  deadLettersNotOffered,
  retryDeadLetter,
  retryDeadLetters,
} from '../../core/dead-letters.js';
import { temporalDeadLetterStore } from '../../store/dead-letters.js';
import { deliveriesQuery, deliveryState, newestDeliveries, presetIn } from '../../store/deliveries.js';
import { attemptCount, lastError } from '../../shared/delivery-view.js';
import { deliveryIdSchema, deliveryParams, deliverySchema, endpointIdSchema } from '../delivery-schemas.js';
import type { RouterDeps } from '../router-deps.js';

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

/** Dead letters shown by the list: only presets that keep one (SPEC §3 "manual recovery"). */
const listedPresets = () => presetIn(presetsOffering((o) => o.deadLetterList));

export function deadLettersRouter(deps: RouterDeps) {
  const app = router<TenantEnv>();
  const { client } = deps;
  const store = temporalDeadLetterStore(client);

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
        if (preset && !recoveryOf(preset).deadLetterList)
          orProblemNow(() => deadLettersNotOffered(endpointId, preset));
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
      const { retried, failed } = await retryDeadLetters(store, c.get('tenantId'), c.req.valid('json'));
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
    async (c) =>
      c.json(await orProblem(retryDeadLetter(store, c.get('tenantId'), c.req.valid('param').id)), 202),
  );

  return app;
}
