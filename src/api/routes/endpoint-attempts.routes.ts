import { createRoute, z } from '@hono/zod-openapi';
import { problemResponse } from '../openapi.js';
import { idParam } from '../schemas.js';

export const attemptRowSchema = z
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

/** Issue 14.8, R-BIRD-REPLAY: every attempt made to one endpoint, newest first. */
export const listAttempts = createRoute({
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
});
