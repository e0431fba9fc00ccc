import { z } from '@hono/zod-openapi';
import {
  VERIFICATION_MODES,
  type ChallengeResult,
  type VerificationError,
  type VerificationView,
} from '../shared/verification.js';

// Issue 14.15: the endpoint option, its state in the endpoint view, and /verify's answer.

export const verificationModeSchema = z.enum(VERIFICATION_MODES).openapi({
  description:
    '`challenge`: before any delivery is sent, and again after every URL change, Herald POSTs a signed ' +
    '`{"type":"webhook.verification","challenge":"..."}` to the URL; the receiver must answer 2xx with the JSON ' +
    '`{"challenge":"<the same value>"}`. Until then deliveries wait (first challenge in flight) or end ' +
    '`failed` (`endpoint_unverified`) with nothing sent. `none` (the default, every preset): no challenge.',
  example: 'challenge',
});

const verificationErrorSchema = z.object({
  at: z.number(),
  code: z.string().openapi({
    description: 'http_<status>, network_<CODE>, timeout, private_address, challenge_mismatch, ...',
  }),
  httpStatus: z.number().optional(),
  detail: z.string().optional(),
}) satisfies z.ZodType<VerificationError>;

export const verificationViewSchema = z
  .object({
    mode: verificationModeSchema,
    status: z.enum(['not_required', 'pending', 'verified', 'unverified']),
    verifiedAt: z.number().optional(),
    lastError: verificationErrorSchema.optional(),
  })
  .openapi('EndpointVerification') satisfies z.ZodType<VerificationView>;

export const verifyResultSchema = z
  .object({
    verified: z.boolean(),
    verification: verificationViewSchema,
    /** The challenge just sent: its HTTP status and, when it failed, why. */
    result: z
      .object({
        ok: z.boolean(),
        at: z.number(),
        url: z.string(),
        httpStatus: z.number().optional(),
        code: z.string().optional(),
        detail: z.string().optional(),
        latencyMs: z.number(),
      })
      .optional() satisfies z.ZodType<ChallengeResult | undefined>,
  })
  .openapi('EndpointVerifyResult');
