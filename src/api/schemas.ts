import { z } from '@hono/zod-openapi';
import type { HealthBanner } from '../health/reporting.js';
import type { DropEnd, HealthNotice, HealthState, HealthStatus } from '../health/types.js';
import { PRESET_NAMES, policyOverridesSchema, type PresetName } from '../policy/policy.js';
import type { DeliveryStatus } from '../shared/delivery-types.js';
import type { EndpointConfig, EndpointView, TestResult } from '../shared/endpoint-types.js';
import type { Destination, VerificationView as SourceVerificationView } from '../shared/source-types.js';
import { secretProblem } from '../signing/standard-webhooks.js';
import { verificationModeSchema, verificationViewSchema } from './verification-schemas.js';
import { maxInFlightSchema, orderingPatchSchema, orderingSchema, rateLimitSchema } from './flow-schemas.js';

/**
 * Every value of a string union, as a tuple for z.enum. Leaving one out, or listing one the
 * union does not have, fails to compile: a status added to the shared type must be added here.
 */
function allOf<T extends string>() {
  return <const L extends readonly [T, ...T[]]>(
    ...values: L & ([T] extends [L[number]] ? unknown : ['missing a value of the union'])
  ) => values;
}

/** Issue 15: statuses are known sets; the document lists them, so clients can switch on them. */
export const DELIVERY_STATUS_VALUES = allOf<DeliveryStatus>()(
  'pending',
  'processing',
  'succeeded',
  'failed',
  'exhausted',
  'dead',
);
export const deliveryStatusSchema = z.enum(DELIVERY_STATUS_VALUES);
export const healthStatusSchema = z.enum(
  allOf<HealthStatus>()('active', 'degraded', 'paused', 'suspended', 'disabled'),
);
const healthNoticeSchema = z.enum(
  allOf<HealthNotice>()('disabled', 'degraded', 'suspended', 'recovered', 'paused'),
);
const dropEndSchema = z.enum(allOf<DropEnd>()('dead', 'exhausted', 'failed'));

export const presetSchema = z.enum(PRESET_NAMES as [PresetName, ...PresetName[]]);

export const eventTypeSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9_.:-]+(\.\*)?$|^\*$/, 'letters, digits and _ . : - (a trailing .* matches a prefix)');

/** Problem code of a secret the signer would reject (see validationProblem). */
export const INVALID_SECRET = 'invalid_secret';

/**
 * A Standard Webhooks secret a tenant hands Herald, checked with the signer's own decoder:
 * one the API accepts always signs, so a bad one is a 400 now, not a failing send later.
 */
export const whsecSchema = z.string().superRefine((s, ctx) => {
  const reason = secretProblem(s);
  if (reason) ctx.addIssue({ code: 'custom', message: reason, params: { code: INVALID_SECRET } });
});

export const operationalWebhookSchema = z.strictObject({
  url: z.string(),
});

/** R-RH-TRANSFORM: checked by compiling it (400 invalid_transformation names the error). */
export const transformationSchema = z.string().openapi({
  description:
    'A JSONata expression over { id, type, occurredAt, payload, headers }. Its value is the JSON body ' +
    'sent, or { body, headers?, method? } to choose headers and PUT/PATCH. See POST /v1/transformations/dry-run.',
  example: '{ "kind": type, "total": payload.amount / 100 }',
});

export const createEndpointSchema = z
  .strictObject({
    url: z.string(),
    description: z.string().max(500).optional(),
    eventTypes: z.array(eventTypeSchema).max(100).optional(),
    preset: presetSchema.optional(),
    policy: policyOverridesSchema.optional(),
    createdBy: z.email().optional(),
    operationalWebhook: operationalWebhookSchema.optional(),
    transformation: transformationSchema.optional(),
    verification: verificationModeSchema.optional(),
    rateLimit: rateLimitSchema.optional(),
    maxInFlight: maxInFlightSchema.optional(),
    ordering: orderingSchema.optional(),
  })
  .openapi('CreateEndpoint');

export const patchEndpointSchema = z
  .strictObject({
    url: z.string().optional(),
    description: z.string().max(500).optional(),
    eventTypes: z.array(eventTypeSchema).max(100).optional(),
    policy: policyOverridesSchema.optional(),
    operationalWebhook: operationalWebhookSchema.nullable().optional(),
    transformation: transformationSchema.nullable().optional(),
    verification: verificationModeSchema.optional(),
    // Issue 17: null removes the option.
    rateLimit: rateLimitSchema.nullable().optional(),
    maxInFlight: maxInFlightSchema.nullable().optional(),
    ordering: orderingPatchSchema.optional(),
  })
  .openapi('PatchEndpoint');

/** R-SMENGO-HEALTH: the endpoint's health as its workflow keeps it. */
export const healthSchema = z
  .object({
    status: healthStatusSchema,
    reason: z
      .string()
      .optional()
      .openapi({
        description:
          'Why it is not active: delivery_exhausted, gone, failing, failing_5_days, consecutive_failures, ' +
          "drain_failed, held_too_long, hold_full, manual (or the operator's own reason)",
      }),
    since: z.number().optional().openapi({ description: 'epoch ms of the last status change' }),
    consecutiveFailures: z.number(),
    streakStartedAt: z.number().optional(),
    episode: z.number(),
    notified: z.array(healthNoticeSchema).optional(),
    circuit: z
      .object({
        openUntil: z.number().optional(),
        failures: z.number(),
        probe: z.object({ deliveryId: z.string(), until: z.number() }).optional(),
        trips: z.number(),
      })
      .optional()
      .openapi({ description: "Railhook's breaker (R-RH-DEFER)" }),
    suspendedAt: z.number().optional(),
    draining: z.boolean().optional(),
    lastTest: z.object({ at: z.number(), ok: z.boolean() }).optional(),
    endedBefore: z.object({ at: z.number(), endAs: dropEndSchema, code: z.string() }).optional(),
    unconfirmed: z.literal(true).optional(),
  })
  .openapi('EndpointHealth') satisfies z.ZodType<HealthState>;

/** The banner an endpoint card shows while it is not active (R-SMENGO-HEALTH). */
export const bannerSchema = z
  .object({
    status: healthStatusSchema,
    reason: z.string(),
    message: z.string().openapi({ description: 'The reason in words, for the endpoint card' }),
    since: z.number().optional(),
  })
  .openapi('EndpointBanner') satisfies z.ZodType<HealthBanner>;

/** A manual test delivery's outcome (POST /v1/endpoints/{id}/test). */
export const testResultSchema = z
  .object({
    ok: z.boolean(),
    at: z.number(),
    httpStatus: z.number().optional(),
    code: z.string().optional(),
    latencyMs: z.number(),
  })
  .openapi('EndpointTestResult') satisfies z.ZodType<TestResult>;

/** What the API shows of a config: an operational webhook's secrets only once, at creation. */
type PublicEndpointConfig = Omit<EndpointConfig, 'operationalWebhook'> & {
  operationalWebhook?: { url: string };
};
export type PublicEndpointView = Omit<EndpointView, 'config'> & { config: PublicEndpointConfig };

export const endpointConfigSchema = z
  .object({
    url: z.string(),
    description: z.string().optional(),
    eventTypes: z.array(z.string()).optional(),
    preset: presetSchema,
    policy: policyOverridesSchema.optional(),
    createdBy: z.string().optional(),
    operationalWebhook: z.object({ url: z.string() }).optional(),
    transformation: z.string().optional(),
    verification: verificationModeSchema.optional(),
    rateLimit: z.object({ perSecond: z.number(), burst: z.number().optional() }).optional(),
    maxInFlight: z.number().optional(),
    ordering: orderingSchema.optional(),
  })
  .openapi('EndpointConfig') satisfies z.ZodType<PublicEndpointConfig>;

export const endpointViewSchema = z
  .object({
    endpointId: z.string(),
    tenantId: z.string(),
    config: endpointConfigSchema,
    health: healthSchema,
    banner: bannerSchema.optional(),
    lastTest: testResultSchema.optional(),
    secretCount: z.number(),
    createdAt: z.number(),
    deleted: z.boolean(),
    verification: verificationViewSchema.optional(),
  })
  .openapi('Endpoint') satisfies z.ZodType<PublicEndpointView>;

/** POST /v1/endpoints/{id}/rotate-secret: the new secret, shown once. */
export const rotateSecretResultSchema = z
  .object({ endpoint: endpointViewSchema, secret: z.string() })
  .openapi('EndpointSecretRotated');

/** GET /v1/events: one row per event record, newest first. */
export const eventRowSchema = z
  .object({ eventId: z.string(), type: z.string(), createdAt: z.string() })
  .openapi('EventRow');

/** GET /v1/events/{eventId}. `skipped` is absent when the record expired and was rebuilt from its deliveries. */
export const eventViewSchema = z
  .object({
    eventId: z.string(),
    type: z.string(),
    occurredAt: z.string(),
    deliveries: z.array(z.object({ id: z.string(), endpointId: z.string() })),
    skipped: z.array(z.object({ endpointId: z.string(), reason: z.string() })).optional(),
    payload: z.unknown().openapi({ description: 'The payload as published (any JSON value)' }),
  })
  .openapi('Event');

/** A source's verification as tenants see it: the scheme, never the secrets. */
export const sourceVerificationViewSchema = z
  .discriminatedUnion('kind', [
    z.object({ kind: z.literal('none') }),
    z.object({
      kind: z.literal('standard_webhooks'),
      toleranceSeconds: z.number().optional(),
      secretCount: z.number(),
    }),
    z.object({
      kind: z.literal('hmac'),
      header: z.string(),
      algorithm: z.enum(['sha1', 'sha256', 'sha512']),
      encoding: z.enum(['hex', 'base64', 'base64url']),
      prefix: z.string().optional(),
      secretCount: z.number(),
    }),
  ])
  .openapi('SourceVerification') satisfies z.ZodType<SourceVerificationView>;

export const destinationSchema = z
  .object({
    destinationId: z.string(),
    url: z.string(),
    description: z.string().optional(),
    policy: policyOverridesSchema.optional(),
    transformation: z.string().optional(),
    createdAt: z.number(),
  })
  .openapi('Destination') satisfies z.ZodType<Destination>;

export const publishSchema = z
  .strictObject({
    id: z
      .string()
      .min(1)
      .max(128)
      .regex(/^[A-Za-z0-9_.:-]+$/, 'letters, digits and _ . : - only')
      .optional(),
    type: z
      .string()
      .min(1)
      .max(128)
      .regex(/^[A-Za-z0-9_.:-]+$/, 'letters, digits and _ . : - only'),
    // Any JSON value. Not z.json(): its recursive type overflows OpenAPI generation, and a
    // body that parsed as JSON can only hold JSON anyway.
    payload: z
      .unknown()
      .refine((v) => v !== undefined, 'Required')
      .openapi({ description: 'Any JSON value: object, array, string, number, boolean or null' }),
    /** One-off receivers outside the tenant's endpoints (development, self-managed fan-out). */
    targets: z
      .array(
        z.strictObject({
          url: z.string().min(1),
          secrets: z.array(whsecSchema).min(1).max(2),
          preset: presetSchema.optional(),
          policy: policyOverridesSchema.optional(),
        }),
      )
      // The cap is the operator's (HERALD_MAX_TARGETS_PER_PUBLISH, 400 too_many_targets).
      .openapi({ description: 'At most HERALD_MAX_TARGETS_PER_PUBLISH (default 20) targets' })
      .optional(),
  })
  .openapi('PublishEvent');

export const idParam = (prefix: string) =>
  z.object({
    id: z.string().regex(new RegExp(`^${prefix}_[A-Za-z0-9_]+$`), `an id starting with ${prefix}_`),
  });
