import { z } from 'zod';
import { validateRetryableStatuses } from './status-grammar.js';
import type { DeliveryPolicy } from './types.js';
import { MIN_RETRY_DELAY_SECONDS } from './apply-overrides.js';

export { MIN_RETRY_DELAY_SECONDS } from './apply-overrides.js';

export const MAX_ATTEMPTS_LIMIT = 20;
export const MAX_DELAY_STEPS = 20;
/**
 * Longest single retry delay accepted. Railhook's seed cites seven days as the
 * longest wait anyone offers (Hookdeck); longer steps would only be cut by a
 * lifetime cap or leave a delivery pending for weeks on presets without one.
 */
export const MAX_RETRY_DELAY_SECONDS = 7 * 24 * 3600;
const MIN_RETRY_DELAY_MESSAGE =
  `a retry delay must be at least ${MIN_RETRY_DELAY_SECONDS} s, so retries cannot become a burst at the receiver`;
export const TIMEOUT_SECONDS_RANGE = { min: 1, max: 60 } as const;

// RFC 9110 token: what a header field name may contain.
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/;

const statusList = z.string().superRefine((value, ctx) => {
  const err = validateRetryableStatuses(value);
  // The message carries the term so the API's problem body can name it.
  if (err) ctx.addIssue({ code: 'custom', message: err.message, params: { term: err.term } });
});

const seconds = (max: number) => z.number().int().min(0).max(max);
const retryDelay = z
  .number()
  .int()
  .min(MIN_RETRY_DELAY_SECONDS, MIN_RETRY_DELAY_MESSAGE)
  .max(MAX_RETRY_DELAY_SECONDS);

const policyObject = z.strictObject({
  preset: z.enum(['standard', 'smengo', 'railhook', 'bird', 'dongtien']),
  direction: z.enum(['outbound', 'inbound']),
  maxAttempts: z.number().int().min(1).max(MAX_ATTEMPTS_LIMIT),
  retryDelaysSeconds: z.array(retryDelay).max(MAX_DELAY_STEPS),
  jitter: z.strictObject({
    min: z.number().min(0).max(10),
    max: z.number().min(0).max(10),
    fromAttempt: z
      .number()
      .int()
      .min(2)
      .max(MAX_ATTEMPTS_LIMIT + 1),
  }),
  timeoutSeconds: z.number().int().min(TIMEOUT_SECONDS_RANGE.min).max(TIMEOUT_SECONDS_RANGE.max),
  retryableStatuses: statusList,
  retryAfter: z.strictObject({
    statuses: statusList,
    rule: z.enum(['max', 'replace']),
    capSeconds: seconds(MAX_RETRY_DELAY_SECONDS),
    minSeconds: seconds(MAX_RETRY_DELAY_SECONDS),
    ignore: z.boolean(),
  }),
  minDelayAfter429OrTimeoutSeconds: seconds(24 * 3600),
  lifetimeSeconds: z.number().int().positive().nullable(),
  deliveryIdHeader: z
    .string()
    .regex(HEADER_NAME, 'must be an HTTP header name (RFC 9110 token, at most 64 chars)'),
  privateAddress: z.enum(['retry', 'fail']),
  invalidUrl: z.enum(['retry', 'fail']),
  goneAction: z.enum(['dead_and_disable', 'exhaust_and_disable', 'follow_list']),
  leaseSeconds: z.number().int().positive().max(3600),
});

export const deliveryPolicySchema: z.ZodType<DeliveryPolicy> = policyObject.superRefine((p, ctx) => {
  if (p.jitter.min > p.jitter.max) {
    ctx.addIssue({ code: 'custom', path: ['jitter'], message: 'jitter.min must not exceed jitter.max' });
  }
  if (p.maxAttempts > 1 && p.retryDelaysSeconds.length === 0) {
    ctx.addIssue({
      code: 'custom',
      path: ['retryDelaysSeconds'],
      message: 'at least one delay is needed when maxAttempts > 1',
    });
  }
  if (p.retryAfter.minSeconds > p.retryAfter.capSeconds && !p.retryAfter.ignore) {
    ctx.addIssue({
      code: 'custom',
      path: ['retryAfter', 'minSeconds'],
      message: 'retryAfter.minSeconds must not exceed capSeconds',
    });
  }
  // A lease shorter than the attempt would hand a healthy in-flight attempt to
  // a second worker and send the request twice.
  if (p.leaseSeconds <= p.timeoutSeconds) {
    ctx.addIssue({
      code: 'custom',
      path: ['leaseSeconds'],
      message: 'leaseSeconds must exceed timeoutSeconds',
    });
  }
});

/** R-RH-CUSTOM: what an endpoint (or inbound destination) may set. */
export const policyOverridesSchema = z.strictObject({
  maxAttempts: z.number().int().min(1).max(MAX_ATTEMPTS_LIMIT).optional(),
  retryDelays: z.array(retryDelay).min(1).max(MAX_DELAY_STEPS).optional(),
  timeoutSeconds: z.number().int().min(TIMEOUT_SECONDS_RANGE.min).max(TIMEOUT_SECONDS_RANGE.max).optional(),
  retryableStatuses: statusList.optional(),
});

export type PolicyOverrides = z.infer<typeof policyOverridesSchema>;
