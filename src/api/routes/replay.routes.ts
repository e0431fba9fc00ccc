import { createRoute, z } from '@hono/zod-openapi';
import { deliveryParams, deliverySchema, endpointIdSchema, isoInstantSchema } from '../delivery-schemas.js';
import { problemResponse } from '../openapi.js';
import { deliveryStatusSchema } from '../schemas.js';

const itemSchema = z
  .object({
    id: z.string(),
    endpointId: z.string(),
    eventType: z.string(),
    eventId: z.string(),
    status: deliveryStatusSchema,
    createdAt: z.string(),
    attemptCount: z.number(),
    lastError: z.string().nullable(),
    nextAttemptAt: z.string().optional(),
    reason: z.string().optional(),
  })
  .openapi('ReplayCandidate');

const previewSchema = z
  .object({
    blocked: z.array(itemSchema),
    waiting: z.array(itemSchema),
    ready: z.array(itemSchema),
    counts: z.object({ blocked: z.number(), waiting: z.number(), ready: z.number() }),
    truncated: z.boolean(),
  })
  .openapi('ReplayPreview');

const bulkResultSchema = z
  .object({
    replayed: z.array(z.string()),
    blocked: z.array(z.string()),
    waiting: z.array(z.string()),
    failed: z.array(z.object({ id: z.string(), code: z.string() })),
  })
  .openapi('BulkReplayResult');

const windowSchema = z
  .strictObject({
    endpointId: endpointIdSchema,
    since: isoInstantSchema.optional(),
    until: isoInstantSchema.optional(),
  })
  .openapi('WindowReplay');

const scopeQuery = z.object({ endpointId: endpointIdSchema.optional() });

export const replayOne = createRoute({
  method: 'post',
  path: '/deliveries/{id}',
  summary: 'Replay one finished delivery: a new round numbered from 1, same webhook-id and body',
  request: { params: deliveryParams },
  responses: {
    202: { description: 'Replaying', content: { 'application/json': { schema: deliverySchema } } },
    404: problemResponse('No such delivery'),
    409: problemResponse(
      'Pending or in flight; or its preset replays by window only (`delivery_replay_not_offered`) or not at all',
    ),
    410: problemResponse(
      "Past its preset's replay window (`replay_window_expired`: 90 days from the event, or 30 days from the end of its round)",
    ),
    429: problemResponse('Replay quota or rate limit'),
  },
});

export const failuresPreview = createRoute({
  method: 'get',
  path: '/failures/preview',
  summary:
    'Failed deliveries grouped before a bulk replay: blocked (re-enable first), waiting (a retry is scheduled), ready',
  request: { query: scopeQuery },
  responses: {
    200: { description: 'The groups', content: { 'application/json': { schema: previewSchema } } },
    400: problemResponse('Invalid filter'),
  },
});

export const replayFailures = createRoute({
  method: 'post',
  path: '/failures',
  summary: 'Replay every ready failed delivery (one request toward the 30 per minute limit)',
  request: { query: scopeQuery },
  responses: {
    202: { description: 'Replayed', content: { 'application/json': { schema: bulkResultSchema } } },
    400: problemResponse('Invalid filter'),
    429: problemResponse('Replay rate limit'),
  },
});

export const replayWindow = createRoute({
  method: 'post',
  path: '/window',
  summary:
    'Replay an endpoint window (since defaults to 24 h ago, until to now, at most 3 days back): ' +
    'every delivery whose latest attempt in it failed gets one more attempt, in the background',
  request: { body: { content: { 'application/json': { schema: windowSchema } }, required: true } },
  responses: {
    202: { description: 'Accepted; no count and no job id' },
    400: problemResponse('Invalid window'),
    404: problemResponse('No such endpoint'),
    409: problemResponse('The endpoint offers no window replay (`window_replay_not_offered`)'),
    429: problemResponse('Daily replay quota exceeded'),
  },
});
