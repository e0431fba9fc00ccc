import { z } from '@hono/zod-openapi';
import { INVALID_FLOW_OPTION, MAX_BURST, MAX_IN_FLIGHT, MAX_PER_SECOND, MIN_PER_SECOND } from '../flow/limits.js';

// Issue 17: the endpoint's flow options (R-RH-DEFER) and the tenant's rate limit.

const bad = (ctx: z.RefinementCtx, path: string, message: string) =>
  ctx.addIssue({ code: 'custom', path: [path], message, params: { code: INVALID_FLOW_OPTION } });

export const rateLimitSchema = z
  .strictObject({
    perSecond: z.number().openapi({
      description: `Sends a second, ${MIN_PER_SECOND} to ${MAX_PER_SECOND}; fractions allowed (0.5 = one every 2 s)`,
      example: 5,
    }),
    burst: z.number().optional().openapi({
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
 * Ordered delivery is not enforced yet, so the option is refused rather than stored and
 * ignored: a tenant who asks for order must not believe they have it.
 */
export const orderingSchema = z
  .enum(['fifo'])
  .superRefine((_v, ctx) =>
    ctx.addIssue({
      code: 'custom',
      message: "ordering 'fifo' is not available yet: deliveries are not held in order",
      params: { code: INVALID_FLOW_OPTION },
    }),
  )
  .openapi({
    description:
      'Reserved for ordered (FIFO) delivery, which is not available yet: any value is refused with ' +
      '400 `invalid_flow_option`.',
  });
