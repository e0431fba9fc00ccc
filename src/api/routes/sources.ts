import { createRoute, z } from '@hono/zod-openapi';
import type { Client } from '@temporalio/client';
import { randomBytes } from 'node:crypto';
import type { Config } from '../../config.js';
import { DESTINATION_ID, SOURCE_ID, newDestinationId, newSourceId } from '../../inbound/forwards.js';
import { HASHED_SOURCE_STATUS, type SourceCache } from '../../inbound/source-cache.js';
import { publicSourceId } from '../../inbound/source-ids.js';
import { policyOverridesSchema } from '../../policy/policy.js';
import { checkEndpointUrl } from '../../policy/url-check.js';
import { urlCheckOptionsFor } from '../../own-ports.js';
import { SA_STATUS, SA_TENANT } from '../../shared/search-attributes.js';
import { SOURCE_WORKFLOW } from '../../shared/names.js';
import {
  DESTINATION_NOT_FOUND,
  MAX_DESTINATIONS,
  SOURCE_DELETED,
  TOO_MANY_DESTINATIONS,
  addDestinationUpdate,
  deleteSourceUpdate,
  removeDestinationUpdate,
  sourceViewQuery,
  updateDestinationUpdate,
  updateSourceUpdate,
} from '../../shared/source-messages.js';
import type { Destination, SourceInput, SourceView, VerificationScheme } from '../../shared/source-types.js';
import { generateSecret } from '../../signing/standard-webhooks.js';
import { destinationSchema, sourceVerificationViewSchema, whsecSchema } from '../schemas.js';
import type { TenantEnv } from '../auth.js';
import type { Directory } from '../../store/directory.js';
import { RUNNING, and, eq, ofType } from '../../store/visibility.js';
import { unlessNotFound } from '../../store/not-found.js';
import { problemResponse, router } from '../openapi.js';
import { fail } from '../problem.js';
import { updateFailureType } from '../../store/deliveries.js';
import { boundedMap } from '../../shared/bounded-map.js';
import { checkTransformation } from '../transformation-check.js';

/** Largest body an ingest URL accepts (a source may set less): well under Temporal's 2 MB payload limit. */
export const MAX_INGEST_BODY_BYTES = 512 * 1024;
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
  .openapi('SourceVerification');

export const destinationInputSchema = z
  .strictObject({
    url: z.string(),
    description: z.string().max(500).optional(),
    /** R-RH-CUSTOM: maxAttempts (1-20), retryDelays (seconds), timeoutSeconds (1-60), retryableStatuses. */
    policy: policyOverridesSchema.optional(),
    transformation: z.string().min(1).max(MAX_TRANSFORMATION_CHARS).optional(),
  })
  .openapi('DestinationInput');

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

const json = <T extends z.ZodType>(schema: T) => ({
  content: { 'application/json': { schema } },
  required: true,
});
const ok = <T extends z.ZodType>(description: string, schema: T) => ({
  description,
  content: { 'application/json': { schema } },
});
const params = z.object({ id: z.string().max(64) });
const destParams = z.object({ id: z.string().max(64), destinationId: z.string().max(64) });

type VerificationInput = z.infer<typeof verificationSchema>;

/** The stored scheme, with a fresh secret when the tenant gave none (returned once). */
function schemeOf(v: VerificationInput | undefined): { scheme: VerificationScheme; secret?: string } {
  if (!v || v.kind === 'none') return { scheme: { kind: 'none' } };
  if (v.kind === 'standard_webhooks') {
    const secret = v.secrets ? undefined : generateSecret();
    return {
      scheme: { kind: v.kind, secrets: v.secrets ?? [secret!], toleranceSeconds: v.toleranceSeconds },
      secret,
    };
  }
  const secret = v.secrets ? undefined : randomBytes(32).toString('hex');
  return {
    scheme: {
      kind: 'hmac',
      header: v.header,
      algorithm: v.algorithm,
      encoding: v.encoding,
      prefix: v.prefix,
      secrets: v.secrets ?? [secret!],
    },
    secret,
  };
}

/** R-RH-INBOUND: a tenant's inbound sources and their destinations. */
export function sourcesRouter(deps: {
  client: Client;
  config: Config;
  directory: Directory;
  sources: SourceCache;
}) {
  const app = router<TenantEnv>();
  const { client, config, sources } = deps;

  // Issue 13.7: the ingest URL holds the ingest id, which only the tenant sees; `sourceId`
  // is the public id (a legacy source's view, from older workers, may lack `ingestId`).
  const present = (reqUrl: string, { ingestId, ...v }: SourceView) => ({
    ...v,
    ingestUrl: `${new URL(reqUrl).origin}/in/${ingestId ?? v.sourceId}`,
  });

  /** R-URL, as for endpoints; the address itself is checked at send time (R-SSRF). */
  const checkUrl = (url: string, path: string) => {
    const r = checkEndpointUrl(url, urlCheckOptionsFor(config));
    if (!r.ok) fail(400, r.code, 'The destination URL is not allowed', r.message, { path });
  };

  const owned = async (tenantId: string, id: string): Promise<SourceView> => {
    if (!SOURCE_ID.test(id)) fail(404, 'source_not_found', 'No such source');
    // Only a source that does not exist is a 404; an unreachable Temporal is a 503.
    const v = await unlessNotFound(client.workflow.getHandle(id).query(sourceViewQuery));
    // Another tenant's source and a missing one look the same.
    if (!v || v.tenantId !== tenantId || v.deleted) fail(404, 'source_not_found', 'No such source');
    return v;
  };

  /** Runs a source update; refusals from the workflow become 404 / 409. */
  const change = async (
    id: string,
    run: (h: ReturnType<Client['workflow']['getHandle']>) => Promise<SourceView>,
  ): Promise<SourceView> => {
    try {
      return await run(client.workflow.getHandle(id));
    } catch (err) {
      const type = updateFailureType(err);
      if (type === DESTINATION_NOT_FOUND) fail(404, 'destination_not_found', 'No such destination');
      if (type === SOURCE_DELETED) fail(404, 'source_not_found', 'No such source');
      if (type === TOO_MANY_DESTINATIONS)
        fail(409, 'too_many_destinations', `A source forwards to at most ${MAX_DESTINATIONS} destinations`);
      throw err;
    } finally {
      sources.drop(id);
    }
  };

  const newDestination = (d: z.infer<typeof destinationInputSchema>, path: string): Destination => {
    checkUrl(d.url, path);
    if (d.transformation !== undefined)
      checkTransformation(d.transformation, path.replace(/url$/, 'transformation'));
    return {
      destinationId: newDestinationId(),
      url: d.url,
      description: d.description,
      policy: d.policy,
      transformation: d.transformation,
      createdAt: Date.now(),
    };
  };

  app.openapi(
    createRoute({
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
      },
    }),
    async (c) => {
      const tenantId = c.get('tenantId');
      const body = c.req.valid('json');
      const { scheme, secret } = schemeOf(body.verification);
      const destinations = (body.destinations ?? []).map((d, i) =>
        newDestination(d, `destinations.${i}.url`),
      );
      // Issue 13.7: the ingest id is the credential; Temporal only ever sees its hash.
      const ingestId = newSourceId();
      const sourceId = publicSourceId(ingestId);
      const input: SourceInput = {
        sourceId,
        ingestId,
        tenantId,
        config: {
          name: body.name,
          description: body.description,
          verification: scheme,
          maxBodyBytes: body.maxBodyBytes ?? MAX_INGEST_BODY_BYTES,
        },
        destinations,
        createdAt: Date.now(),
      };
      await client.workflow.start(SOURCE_WORKFLOW, {
        workflowId: sourceId,
        taskQueue: config.HERALD_TASK_QUEUE,
        args: [input],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        typedSearchAttributes: [
          { key: SA_TENANT, value: tenantId },
          // Marks a source whose workflow id is a public id (source-cache.ts).
          { key: SA_STATUS, value: HASHED_SOURCE_STATUS },
        ],
      });
      const source = present(c.req.url, await owned(tenantId, sourceId));
      return c.json({ source, ...(secret ? { secret } : {}) }, 201);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/',
      summary: "The tenant's inbound sources, newest first",
      responses: { 200: ok('Sources', z.object({ data: z.array(sourceSchema) })) },
    }),
    async (c) => {
      const tenantId = c.get('tenantId');
      const ids: string[] = [];
      const query = and(ofType(SOURCE_WORKFLOW), eq(SA_TENANT, tenantId), RUNNING);
      for await (const wf of client.workflow.list({ query })) ids.push(wf.workflowId);
      const views = await boundedMap(ids, 16, async (id) => {
        try {
          const v = await client.workflow.getHandle(id).query(sourceViewQuery);
          return v.tenantId === tenantId && !v.deleted ? v : undefined;
        } catch {
          return undefined;
        }
      });
      const data = views
        .filter((v): v is SourceView => v !== undefined)
        .sort((a, b) => b.createdAt - a.createdAt)
        .map((v) => present(c.req.url, v));
      return c.json({ data }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/{id}',
      summary: 'One source with its destinations',
      request: { params },
      responses: { 200: ok('The source', sourceSchema), 404: problemResponse('No such source') },
    }),
    async (c) => c.json(present(c.req.url, await owned(c.get('tenantId'), c.req.valid('param').id)), 200),
  );

  app.openapi(
    createRoute({
      method: 'patch',
      path: '/{id}',
      summary: 'Change name, description, verification or body limit',
      request: { params, body: json(patchSourceSchema) },
      responses: {
        200: ok('Updated', z.object({ source: sourceSchema, secret: z.string().optional() })),
        400: problemResponse('Invalid change'),
        404: problemResponse('No such source'),
      },
    }),
    async (c) => {
      const tenantId = c.get('tenantId');
      const { id } = c.req.valid('param');
      await owned(tenantId, id);
      const patch = c.req.valid('json');
      const made = patch.verification ? schemeOf(patch.verification) : undefined;
      const view = await change(id, (h) =>
        h.executeUpdate(updateSourceUpdate, {
          args: [
            {
              name: patch.name,
              description: patch.description,
              maxBodyBytes: patch.maxBodyBytes,
              verification: made?.scheme,
            },
          ],
        }),
      );
      return c.json(
        { source: present(c.req.url, view), ...(made?.secret ? { secret: made.secret } : {}) },
        200,
      );
    },
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/{id}',
      summary: 'Delete the source: its ingest URL answers 404; forwards already accepted go on',
      request: { params },
      responses: { 204: { description: 'Deleted' }, 404: problemResponse('No such source') },
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      await owned(c.get('tenantId'), id);
      await change(id, (h) => h.executeUpdate(deleteSourceUpdate));
      return c.body(null, 204);
    },
  );

  app.openapi(
    createRoute({
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
    }),
    async (c) => {
      const { id } = c.req.valid('param');
      await owned(c.get('tenantId'), id);
      const d = newDestination(c.req.valid('json'), 'url');
      const view = await change(id, (h) => h.executeUpdate(addDestinationUpdate, { args: [d] }));
      return c.json({ destination: d, source: present(c.req.url, view) }, 201);
    },
  );

  app.openapi(
    createRoute({
      method: 'patch',
      path: '/{id}/destinations/{destinationId}',
      summary: "Change a destination's URL, description, overrides or transformation (new forwards only)",
      request: { params: destParams, body: json(destinationPatchSchema) },
      responses: {
        200: ok('Updated', sourceSchema),
        400: problemResponse('Invalid change'),
        404: problemResponse('No such source or destination'),
      },
    }),
    async (c) => {
      const { id, destinationId } = c.req.valid('param');
      await owned(c.get('tenantId'), id);
      if (!DESTINATION_ID.test(destinationId)) fail(404, 'destination_not_found', 'No such destination');
      const patch = c.req.valid('json');
      if (patch.url !== undefined) checkUrl(patch.url, 'url');
      if (typeof patch.transformation === 'string') checkTransformation(patch.transformation);
      const view = await change(id, (h) =>
        h.executeUpdate(updateDestinationUpdate, { args: [{ destinationId, patch }] }),
      );
      return c.json(present(c.req.url, view), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/{id}/destinations/{destinationId}',
      summary: 'Remove a destination; its forwards already accepted go on',
      request: { params: destParams },
      responses: { 200: ok('Removed', sourceSchema), 404: problemResponse('No such source or destination') },
    }),
    async (c) => {
      const { id, destinationId } = c.req.valid('param');
      await owned(c.get('tenantId'), id);
      if (!DESTINATION_ID.test(destinationId)) fail(404, 'destination_not_found', 'No such destination');
      const view = await change(id, (h) =>
        h.executeUpdate(removeDestinationUpdate, { args: [{ destinationId }] }),
      );
      return c.json(present(c.req.url, view), 200);
    },
  );

  return app;
}
