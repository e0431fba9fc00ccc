import { createRoute, z } from '@hono/zod-openapi';
import {
  MAX_INGEST_BODY_BYTES,
  type DestinationRequest,
  type VerificationRequest,
} from '../../core/sources.js';
import { policyOverridesSchema } from '../../policy/policy.js';
import { MAX_DESTINATIONS } from '../../shared/source-messages.js';
import { destinationSchema, sourceVerificationViewSchema, whsecSchema } from '../schemas.js';
import { problemResponse } from '../openapi.js';

/** Transformations are JSONata text (R-RH-TRANSFORM); the send path checks and applies them. */
const MAX_TRANSFORMATION_CHARS = 16_384;

const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/;

// The signer's own decoder: a bad secret is a 400 invalid_secret naming the field.
const whsec = whsecSchema;

export const verificationSchema = z
  .discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('none') }),
    z.strictObject({
      kind: z.literal('standard_webhooks'),
      /** The sender's secrets; left out, Herald makes one and shows it once. */
      secrets: z.array(whsec).min(1).max(2).optional(),
      toleranceSeconds: z.number().int().min(1).max(3600).optional(),
    }),
    z.strictObject({
      kind: z.literal('hmac'),
      header: z.string().regex(HEADER_NAME, 'must be an HTTP header name'),
      algorithm: z.enum(['sha1', 'sha256', 'sha512']).default('sha256'),
      encoding: z.enum(['hex', 'base64', 'base64url']).default('hex'),
      prefix: z.string().min(1).max(32).optional(),
      secrets: z.array(z.string().min(16).max(512)).min(1).max(2).optional(),
    }),
  ])
  .openapi('SourceVerification') satisfies z.ZodType<VerificationRequest, unknown>;

export const destinationInputSchema = z
  .strictObject({
    url: z.string(),
    description: z.string().max(500).optional(),
    /** R-RH-CUSTOM: maxAttempts (1-20), retryDelays (seconds), timeoutSeconds (1-60), retryableStatuses. */
    policy: policyOverridesSchema.optional(),
    transformation: z.string().min(1).max(MAX_TRANSFORMATION_CHARS).optional(),
  })
  .openapi('DestinationInput') satisfies z.ZodType<DestinationRequest, unknown>;

const destinationPatchSchema = z
  .strictObject({
    url: z.string().optional(),
    description: z.string().max(500).optional(),
    policy: policyOverridesSchema.nullable().optional(),
    transformation: z.string().min(1).max(MAX_TRANSFORMATION_CHARS).nullable().optional(),
  })
  .openapi('DestinationPatch');

const createSourceSchema = z
  .strictObject({
    name: z.string().max(200).optional(),
    description: z.string().max(500).optional(),
    verification: verificationSchema.optional(),
    maxBodyBytes: z.number().int().min(1).max(MAX_INGEST_BODY_BYTES).optional(),
    destinations: z.array(destinationInputSchema).max(MAX_DESTINATIONS).optional(),
  })
  .openapi('CreateSource');

const patchSourceSchema = z
  .strictObject({
    name: z.string().max(200).optional(),
    description: z.string().max(500).optional(),
    verification: verificationSchema.optional(),
    maxBodyBytes: z.number().int().min(1).max(MAX_INGEST_BODY_BYTES).optional(),
  })
  .openapi('PatchSource');

const sourceSchema = z
  .object({
    sourceId: z.string(),
    tenantId: z.string(),
    name: z.string().optional(),
    description: z.string().optional(),
    verification: sourceVerificationViewSchema,
    maxBodyBytes: z.number(),
    destinations: z.array(destinationSchema),
    createdAt: z.number(),
    deleted: z.boolean(),
    /**
     * POST here; public, no API key. It holds the ingest id, which is not `sourceId`: keep
     * it as secret as a signing secret when the source verifies nothing.
     */
    ingestUrl: z.string(),
  })
  .openapi('Source');

export const json = <T extends z.ZodType>(schema: T) => ({
  content: { 'application/json': { schema } },
  required: true,
});
export const ok = <T extends z.ZodType>(description: string, schema: T) => ({
  description,
  content: { 'application/json': { schema } },
});
const params = z.object({ id: z.string().max(64) });
const destParams = z.object({ id: z.string().max(64), destinationId: z.string().max(64) });

export const create = createRoute({
  method: 'post',
  path: '/',
  summary: 'Create an inbound source: a public ingest URL that forwards to its destinations',
  request: { body: json(createSourceSchema) },
  responses: {
    201: ok(
      'Created; a generated verification secret is shown once',
      z.object({ source: sourceSchema, secret: z.string().optional() }),
    ),
    400: problemResponse('Invalid source'),
    409: problemResponse('source_limit_reached: HERALD_MAX_SOURCES_PER_TENANT sources already'),
  },
});

export const list = createRoute({
  method: 'get',
  path: '/',
  summary: "The tenant's inbound sources, newest first",
  responses: { 200: ok('Sources', z.object({ data: z.array(sourceSchema) })) },
});

export const get = createRoute({
  method: 'get',
  path: '/{id}',
  summary: 'One source with its destinations',
  request: { params },
  responses: { 200: ok('The source', sourceSchema), 404: problemResponse('No such source') },
});

export const patch = createRoute({
  method: 'patch',
  path: '/{id}',
  summary: 'Change name, description, verification or body limit',
  request: { params, body: json(patchSourceSchema) },
  responses: {
    200: ok('Updated', z.object({ source: sourceSchema, secret: z.string().optional() })),
    400: problemResponse('Invalid change'),
    404: problemResponse('No such source'),
  },
});

export const remove = createRoute({
  method: 'delete',
  path: '/{id}',
  summary: 'Delete the source: its ingest URL answers 404; forwards already accepted go on',
  request: { params },
  responses: { 204: { description: 'Deleted' }, 404: problemResponse('No such source') },
});

export const addDestination = createRoute({
  method: 'post',
  path: '/{id}/destinations',
  summary: 'Add a destination (with optional R-RH-CUSTOM overrides and transformation)',
  request: { params, body: json(destinationInputSchema) },
  responses: {
    201: ok('Added', z.object({ destination: destinationSchema, source: sourceSchema })),
    400: problemResponse('Invalid destination'),
    404: problemResponse('No such source'),
    409: problemResponse('Too many destinations'),
  },
});

export const updateDestination = createRoute({
  method: 'patch',
  path: '/{id}/destinations/{destinationId}',
  summary: "Change a destination's URL, description, overrides or transformation (new forwards only)",
  request: { params: destParams, body: json(destinationPatchSchema) },
  responses: {
    200: ok('Updated', sourceSchema),
    400: problemResponse('Invalid change'),
    404: problemResponse('No such source or destination'),
  },
});

export const removeDestination = createRoute({
  method: 'delete',
  path: '/{id}/destinations/{destinationId}',
  summary: 'Remove a destination; its forwards already accepted go on',
  request: { params: destParams },
  responses: { 200: ok('Removed', sourceSchema), 404: problemResponse('No such source or destination') },
});
