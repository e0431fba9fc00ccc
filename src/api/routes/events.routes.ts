import { createRoute, z } from '@hono/zod-openapi';
import { problemResponse } from '../openapi.js';
import { eventRowSchema, eventViewSchema, publishSchema } from '../schemas.js';

export const MAX_EVENT_BYTES = 256 * 1024;

const recordSchema = z
  .object({
    eventId: z.string(),
    type: z.string(),
    occurredAt: z.string(),
    deliveries: z.array(z.object({ id: z.string(), endpointId: z.string() })),
    skipped: z.array(z.object({ endpointId: z.string(), reason: z.string() })),
  })
  .openapi('PublishedEvent');

export const publishEvent = createRoute({
  method: 'post',
  path: '/',
  summary: 'Publish an event to every matching endpoint of the tenant (202 with the delivery ids)',
  request: {
    headers: z.object({
      'idempotency-key': z
        .string()
        .min(1)
        .max(128)
        .regex(/^[A-Za-z0-9_.:-]+$/)
        .optional(),
    }),
    body: { content: { 'application/json': { schema: publishSchema } }, required: true },
  },
  responses: {
    202: {
      description: 'Accepted: every delivery is durably started',
      content: { 'application/json': { schema: recordSchema } },
    },
    400: problemResponse('Invalid event; too_many_targets: more than HERALD_MAX_TARGETS_PER_PUBLISH'),
    413: problemResponse('Too large'),
    429: problemResponse("rate_limited: over the tenant's publish rate; see Retry-After"),
  },
});

export const listEvents = createRoute({
  method: 'get',
  path: '/',
  summary: "The tenant's events, newest first, delivered or not (read back what was missed)",
  request: {
    query: z.object({
      type: z.string().max(128).optional(),
      limit: z.coerce.number().int().min(1).max(500).default(100),
    }),
  },
  responses: {
    200: {
      description: 'Events',
      content: {
        'application/json': { schema: z.object({ data: z.array(eventRowSchema) }) },
      },
    },
  },
});

export const getEvent = createRoute({
  method: 'get',
  path: '/{eventId}',
  summary: 'One event: type, time, body and its deliveries',
  request: {
    params: z.object({
      eventId: z
        .string()
        .min(1)
        .max(128)
        .regex(/^[A-Za-z0-9_.:-]+$/),
    }),
  },
  responses: {
    200: {
      description: 'The event',
      content: { 'application/json': { schema: eventViewSchema } },
    },
    404: problemResponse('No such event'),
  },
});
