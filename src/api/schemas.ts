import { z } from '@hono/zod-openapi';
import { PRESET_NAMES, policyOverridesSchema, type PresetName } from '../policy/policy.js';
import { secretProblem } from '../signing/standard-webhooks.js';
import { verificationModeSchema, verificationViewSchema } from './verification-schemas.js';

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
  })
  .openapi('PatchEndpoint');

export const endpointViewSchema = z
  .object({
    endpointId: z.string(),
    tenantId: z.string(),
    config: z.object({}).passthrough(),
    health: z.object({ status: z.string() }).passthrough(),
    banner: z.object({ reason: z.string(), text: z.string().optional() }).passthrough().optional(),
    lastTest: z.object({}).passthrough().optional(),
    secretCount: z.number(),
    createdAt: z.number(),
    deleted: z.boolean(),
    verification: verificationViewSchema.optional(),
  })
  .openapi('Endpoint');

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
