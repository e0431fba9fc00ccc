import { z } from '@hono/zod-openapi';
import type { DeliveryStatus } from '../shared/delivery-types.js';
import type { DeliveryRow, DeliveryView } from '../shared/delivery-view.js';
import { DELIVERY_ID, ENDPOINT_ID } from '../shared/ids.js';
import { DELIVERY_STATUS_VALUES, deliveryStatusSchema } from './schemas.js';

// Delivery schemas shared by the deliveries, dead-letter, replay and forward routes.

export const deliveryIdSchema = z
  .string()
  .max(256)
  .regex(
    DELIVERY_ID,
    'a delivery id: dlv_..., or ev_<tenant>_<event id> for the delivery holding its event id',
  );
export const deliveryParams = z.object({ id: deliveryIdSchema });
export const endpointIdSchema = z.string().max(128).regex(ENDPOINT_ID, 'an endpoint id starting with ep_');

/** @deprecated for forwards.ts until its split: the statuses are DELIVERY_STATUS_VALUES. */
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = DELIVERY_STATUS_VALUES;

/**
 * An instant, with any offset, whose UTC year has four digits: a list's bounds go into a
 * visibility query as UTC, and `9999-12-31T23:59-23:59` would become year 10000, which
 * Temporal refuses.
 */
export const isoInstantSchema = z.iso.datetime({ offset: true }).refine((s) => {
  const year = new Date(s).getUTCFullYear();
  return year >= 1970 && year <= 9999;
}, 'an instant between 1970 and 9999 (UTC)');
export const deliveryListQuery = z.object({
  endpointId: endpointIdSchema.optional(),
  status: deliveryStatusSchema.optional(),
  eventType: z
    .string()
    .min(1)
    .max(128)
    .regex(/^[A-Za-z0-9_.:-]+$/)
    .optional(),
  since: isoInstantSchema.optional(),
  until: isoInstantSchema.optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

export const rowSchema = z
  .object({
    id: z.string(),
    endpointId: z.string(),
    eventType: z.string(),
    eventId: z.string(),
    status: deliveryStatusSchema,
    createdAt: z.string(),
  })
  .openapi('DeliveryRow') satisfies z.ZodType<DeliveryRow>;
export const attemptSchema = z
  .object({
    kind: z.enum(['attempt', 'refused', 'deferral', 'lease_expired']),
    attempt: z.number(),
    round: z.number(),
    startedAt: z.string(),
    finishedAt: z.string(),
    latencyMs: z.number(),
    httpStatus: z.number().optional(),
    code: z.string().optional(),
    responseBody: z.string().optional(),
    // Issue 14.12: `base64` when the response bytes were not UTF-8; absent for text.
    responseBodyEncoding: z.enum(['base64']).optional(),
    // Issue 14.16: the body this attempt sent, when a transformation changed it (first 4 KiB).
    sent: z
      .object({
        body: z.string(),
        bytes: z.number(),
        truncated: z.literal(true).optional(),
        method: z.string().optional(),
      })
      .optional(),
    detail: z.string().optional(),
    replay: z.boolean().optional(),
    // Issue 14.1: a deferral row standing for this many identical deferrals in a row.
    repeats: z.number().optional(),
  })
  .openapi('Attempt');
export const deliverySchema = z
  .object({
    id: z.string(),
    endpointId: z.string(),
    eventId: z.string(),
    eventType: z.string(),
    status: deliveryStatusSchema,
    createdAt: z.string(),
    round: z.number(),
    attemptsInRound: z.number(),
    attemptBudget: z.number(),
    attemptCount: z.number(),
    responseCode: z.number().nullable(),
    nextAttemptAt: z.string().optional(),
    lastError: z.string().optional(),
    body: z.string().optional(),
    attempts: z.array(attemptSchema),
  })
  .openapi('Delivery') satisfies z.ZodType<DeliveryView>;
