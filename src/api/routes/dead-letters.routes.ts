import { createRoute, z } from '@hono/zod-openapi';
import { BULK_RETRY_LIMIT } from '../../core/dead-letters.js';
import { deliveryIdSchema, deliveryParams, deliverySchema, endpointIdSchema } from '../delivery-schemas.js';
import { problemResponse } from '../openapi.js';

const deadLetterSchema = z
  .object({
    id: z.string(),
    endpointId: z.string(),
    eventType: z.string(),
    eventId: z.string(),
    createdAt: z.string(),
    attemptCount: z.number(),
    lastError: z.string().nullable(),
    /**
     * False once the delivery's retry window closed (issue 16: 30 days from the end of its
     * round, Dong Tien 90 days from the event; Smengo never offers a retry).
     */
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

export const listDeadLetters = createRoute({
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
});

export const retryMany = createRoute({
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
});

export const retryOne = createRoute({
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
});
