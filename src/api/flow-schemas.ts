import { z } from '@hono/zod-openapi';
import {
  INVALID_FLOW_OPTION,
  MAX_BURST,
  MAX_IN_FLIGHT,
  MAX_PER_SECOND,
  MIN_PER_SECOND,
} from '../flow/limits.js';

// Issue 17: the endpoint's flow options (R-RH-DEFER) and the tenant's rate limit.

const bad = (ctx: z.RefinementCtx, path: string, message: string) =>
  ctx.addIssue({ code: 'custom', path: [path], message, params: { code: INVALID_FLOW_OPTION } });

export const rateLimitSchema = z
  .strictObject({
    perSecond: z.number().openapi({
      description: `Sends a second, ${MIN_PER_SECOND} to ${MAX_PER_SECOND}; fractions allowed (0.5 = one every 2 s)`,
      example: 5,
    }),
    burst: z
      .number()
      .optional()
      .openapi({
        description: `Sends allowed back to back after a quiet spell (the bucket's size), 1 to ${MAX_BURST}; default 1`,
        example: 1,
      }),
  })
  .superRefine((v, ctx) => {
    if (!(v.perSecond >= MIN_PER_SECOND && v.perSecond <= MAX_PER_SECOND))
      bad(ctx, 'perSecond', `perSecond must be between ${MIN_PER_SECOND} and ${MAX_PER_SECOND}`);
    if (v.burst !== undefined && !(Number.isInteger(v.burst) && v.burst >= 1 && v.burst <= MAX_BURST))
      bad(ctx, 'burst', `burst must be a whole number from 1 to ${MAX_BURST}`);
  })
  .openapi('RateLimit', {
    description:
      'A delivery over the limit is deferred (`rate_limited`, no attempt spent) and sent when its reserved token is free. ' +
      'At most perSecond + burst requests reach the receiver in any one second.',
  });

export const maxInFlightSchema = z
  .number()
  .superRefine((v, ctx) => {
    if (!(Number.isInteger(v) && v >= 1 && v <= MAX_IN_FLIGHT))
      ctx.addIssue({
        code: 'custom',
        message: `maxInFlight must be a whole number from 1 to ${MAX_IN_FLIGHT}`,
        params: { code: INVALID_FLOW_OPTION },
      });
  })
  .openapi({
    description:
      'At most this many attempts of the endpoint in flight at once, across all workers. Waiters are deferred ' +
      '(`concurrency_limited`, no attempt spent) and woken when a slot frees.',
    example: 2,
  });

/**
 * Issue 17: ordered (FIFO) delivery. Deliveries of events accepted while it is set are
 * attempted in acceptance order: a later one waits (`waiting_for_previous`, no attempt spent)
 * while an earlier one is unfinished (retrying, in backoff, or held). A string refined rather
 * than an enum, so a bad value is an `invalid_flow_option` like the other options' bad values;
 * the document shows the enum.
 */
const orderingValue = () =>
  z.string().superRefine((v, ctx) => {
    if (v !== 'fifo')
      ctx.addIssue({
        code: 'custom',
        message: "ordering must be 'fifo' (or null on PATCH to clear it)",
        params: { code: INVALID_FLOW_OPTION },
      });
  });

const ORDERING_DESCRIPTION =
  '`fifo`: deliveries of events accepted while it is set are attempted in the order the events were ' +
  'accepted (publish order for events published one after the other). A later delivery waits while an ' +
  'earlier one is unfinished: retrying, in backoff, or held; that wait is a deferral (`waiting_for_previous`, ' +
  'no attempt spent). An earlier one that ends (succeeded, exhausted, dead, failed) releases the next. A ' +
  'dead-letter retry or replay joins the queue at its tail. Deliveries created before it was set keep no order.';

export const orderingSchema = orderingValue().openapi({
  enum: ['fifo'],
  description: ORDERING_DESCRIPTION,
  example: 'fifo',
}) as unknown as z.ZodType<'fifo'>;

/** PATCH: `null` clears the option (every delivery waiting for an earlier one goes). */
export const orderingPatchSchema = orderingValue()
  .nullable()
  .openapi({
    enum: ['fifo', null],
    description: `${ORDERING_DESCRIPTION} \`null\` clears it: every delivery waiting for an earlier one goes.`,
    example: 'fifo',
  }) as unknown as z.ZodType<'fifo' | null>;
