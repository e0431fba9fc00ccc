import { createRoute, z } from '@hono/zod-openapi';
import { BULK_RETRY_LIMIT } from '../../core/forwards.js';
import { DESTINATION_ID, FORWARD_ID, SOURCE_ID } from '../../inbound/forwards.js';
import type { DeliveryStatus } from '../../shared/delivery-types.js';
import { DELIVERY_STATUSES, attemptSchema } from '../delivery-schemas.js';
import { problemResponse } from '../openapi.js';

const forwardRowSchema = z
  .object({
    id: z.string(),
    sourceId: z.string(),
    destinationId: z.string(),
    requestId: z.string(),
    status: z.string(),
    createdAt: z.string(),
  })
  .openapi('ForwardRow');

const undeliveredSchema = forwardRowSchema
  .extend({
    attemptCount: z.number(),
    lastError: z.string().nullable(),
    /** The forward a retry already made from this one; retrying again answers 409. */
    retriedAs: z.string().nullable(),
  })
  .openapi('UndeliveredForward');

const bodySchema = z.object({
  /** `utf8`: `body` is the text; `base64`: the bytes were not UTF-8. */
  encoding: z.enum(['utf8', 'base64']),
  body: z.string(),
});

const forwardSchema = z
  .object({
    id: z.string(),
    sourceId: z.string(),
    destinationId: z.string(),
    requestId: z.string(),
    status: z.string(),
    createdAt: z.string(),
    retryOf: z.string().optional(),
    url: z.string(),
    original: bodySchema.extend({
      receivedAt: z.string(),
      headers: z.array(z.tuple([z.string(), z.string()])),
    }),
    forwarded: bodySchema.extend({
      method: z.string(),
      headers: z.array(z.tuple([z.string(), z.string()])),
      /**
       * Set when a transformation rewrites the request at send time (R-RH-TRANSFORM): body,
       * headers and method are then its result on the original request, evaluated for this view.
       */
      transformation: z.string().optional(),
      /** Why the transformation fails (the forward's attempts then fail `transformation_failed`). */
      transformationError: z.string().optional(),
    }),
    attemptCount: z.number(),
    attemptBudget: z.number(),
    lastError: z.string().optional(),
    nextAttemptAt: z.string().optional(),
    attempts: z.array(attemptSchema),
  })
  .openapi('Forward');

const forwardParams = z.object({ id: z.string().max(64) });

export const list = createRoute({
  method: 'get',
  path: '/',
  summary: 'Forwards of received webhooks, newest first, by source, destination and status',
  request: {
    query: z.object({
      sourceId: z.string().regex(SOURCE_ID, 'a source id').optional(),
      destinationId: z.string().regex(DESTINATION_ID, 'a destination id').optional(),
      status: z.enum(DELIVERY_STATUSES as [DeliveryStatus, ...DeliveryStatus[]]).optional(),
      limit: z.coerce.number().int().min(1).max(500).default(100),
    }),
  },
  responses: {
    200: {
      description: 'Forwards',
      content: { 'application/json': { schema: z.object({ data: z.array(forwardRowSchema) }) } },
    },
    400: problemResponse('Invalid filter'),
  },
});

export const undelivered = createRoute({
  method: 'get',
  path: '/dead-letters',
  summary: 'Undelivered forwards (exhausted or failed), newest first, with attempt count and last error',
  request: {
    query: z.object({
      sourceId: z.string().regex(SOURCE_ID, 'a source id').optional(),
      limit: z.coerce.number().int().min(1).max(500).default(100),
    }),
  },
  responses: {
    200: {
      description: 'Undelivered forwards',
      content: { 'application/json': { schema: z.object({ data: z.array(undeliveredSchema) }) } },
    },
    400: problemResponse('Invalid filter'),
  },
});

export const retryMany = createRoute({
  method: 'post',
  path: '/dead-letters/retry',
  summary: `Retry many undelivered forwards: {ids} (at most ${BULK_RETRY_LIMIT}); each becomes a new forward`,
  request: {
    body: {
      content: {
        'application/json': {
          schema: z
            .strictObject({
              ids: z.array(z.string().regex(FORWARD_ID, 'a forward id')).min(1).max(BULK_RETRY_LIMIT),
            })
            .openapi('BulkForwardRetry'),
        },
      },
      required: true,
    },
  },
  responses: {
    202: {
      description: 'The new forwards; the rest with the reason',
      content: {
        'application/json': {
          schema: z.object({
            retried: z.array(z.object({ id: z.string(), retryOf: z.string() })),
            failed: z.array(z.object({ id: z.string(), code: z.string() })),
          }),
        },
      },
    },
    400: problemResponse('Invalid body'),
  },
});

export const retryOne = createRoute({
  method: 'post',
  path: '/dead-letters/{id}/retry',
  summary:
    'Retry an undelivered forward: a new forward of the same request to the same destination, from attempt 1',
  request: { params: forwardParams },
  responses: {
    202: {
      description: 'The new forward',
      content: {
        'application/json': {
          schema: z.object({
            id: z.string(),
            retryOf: z.string(),
            destinationId: z.string(),
            status: z.string(),
          }),
        },
      },
    },
    404: problemResponse('No such forward'),
    409: problemResponse('Not undelivered, already retried, or the destination is gone'),
  },
});

export const get = createRoute({
  method: 'get',
  path: '/{id}',
  summary:
    'One forward: the original request (headers and body as received), what is forwarded, and its attempts',
  request: { params: forwardParams },
  responses: {
    200: { description: 'The forward', content: { 'application/json': { schema: forwardSchema } } },
    404: problemResponse('No such forward'),
  },
});
