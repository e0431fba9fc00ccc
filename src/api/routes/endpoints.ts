import { createRoute, z } from '@hono/zod-openapi';
import type { Client } from '@temporalio/client';
import type { Config } from '../../config.js';
import { settingsFrom } from '../../settings.js';
import { startEndpoint } from '../../endpoints/start-endpoint.js';
import { initialHealth } from '../../health/engine.js';
import { healthBanner } from '../../health/reporting.js';
import type { Resolver } from '../../activities/http-sender.js';
import { parseCidrList } from '../../policy/address.js';
import { checkEndpointUrl } from '../../policy/url-check.js';
import { urlCheckOptionsFor } from '../../own-ports.js';
import {
  deleteEndpointUpdate,
  pauseEndpointUpdate,
  resumeEndpointUpdate,
  rotateSecretUpdate,
  sendTestUpdate,
  updateEndpointUpdate,
  verifyEndpointUpdate,
} from '../../shared/endpoint-messages.js';
import { initialVerification } from '../../shared/verification.js';
import { verifyResultSchema } from '../verification-schemas.js';
import type { EndpointView } from '../../shared/endpoint-types.js';
import { generateSecret } from '../../signing/standard-webhooks.js';
import type { TenantEnv } from '../auth.js';
import type { Directory } from '../../store/directory.js';
import { newId } from '../keys.js';
import { OneAtATime } from '../one-at-a-time.js';
import { fail } from '../problem.js';
import { problemResponse, router } from '../openapi.js';
import {
  createEndpointSchema,
  endpointViewSchema,
  idParam,
  patchEndpointSchema,
  rotateSecretResultSchema,
  testResultSchema,
} from '../schemas.js';
import { checkTransformation } from '../transformation-check.js';
import { checkHostAddresses } from '../url-address-check.js';

const viewResponse = (description: string) => ({
  description,
  content: { 'application/json': { schema: endpointViewSchema } },
});
const params = idParam('ep');

/** The view tenants get: an operational webhook's signing secrets are shown once, at creation. */
function publicView(v: EndpointView): EndpointView {
  const ow = v.config.operationalWebhook;
  return ow ? { ...v, config: { ...v.config, operationalWebhook: { url: ow.url } as typeof ow } } : v;
}
const json = <T extends z.ZodType>(schema: T) => ({
  content: { 'application/json': { schema } },
  required: true,
});

export function endpointsRouter(deps: {
  client: Client;
  config: Config;
  directory: Directory;
  /** Issue 14.9: the save-time address check's resolver; the sender's by default. */
  resolve?: Resolver;
}) {
  const app = router<TenantEnv>();
  const { client, config, directory } = deps;
  const allow = parseCidrList(config.HERALD_ALLOW_ADDRESSES);
  const creates = new OneAtATime();

  /**
   * R-URL on create and update. Bird also refuses a private address when the URL is set:
   * an IP literal, and since issue 14.9 a hostname that resolves to one (or to nothing).
   */
  const checkUrl = async (url: string, preset: string) => {
    const r = checkEndpointUrl(url, urlCheckOptionsFor(config));
    if (!r.ok) fail(400, r.code, 'The endpoint URL is not allowed', r.message, { path: 'url' });
    // Gated on the preset's name: no policy field says "refused when the URL is set" yet.
    if (preset !== 'bird') return;
    const a = await checkHostAddresses(r.url, { allow, resolve: deps.resolve });
    if (!a.ok)
      fail(
        400,
        a.code,
        a.code === 'private_address'
          ? 'The endpoint URL points at a private address'
          : 'The endpoint URL does not resolve',
        a.message,
        { path: 'url' },
      );
  };

  const owned = async (tenantId: string, id: string): Promise<EndpointView> => {
    const v = await directory.endpoint(tenantId, id);
    // Another tenant's endpoint and a missing one look the same.
    if (!v) fail(404, 'endpoint_not_found', 'No such endpoint');
    return v;
  };

  app.openapi(
    createRoute({
      method: 'post',
      path: '/',
      summary: 'Create an endpoint; its signing secret is returned once',
      request: { body: json(createEndpointSchema) },
      responses: {
        201: {
          description: 'Created',
          content: {
            'application/json': {
              schema: z.object({
                endpoint: endpointViewSchema,
                secret: z.string(),
                /** Shown once, when the endpoint has an operational webhook. */
                operationalWebhookSecret: z.string().optional(),
              }),
            },
          },
        },
        400: problemResponse('Invalid endpoint'),
        409: problemResponse('endpoint_limit_reached: HERALD_MAX_ENDPOINTS_PER_TENANT endpoints already'),
      },
    }),
    async (c) => {
      const tenantId = c.get('tenantId');
      const body = c.req.valid('json');
      const preset = body.preset ?? config.HERALD_DEFAULT_PRESET;
      await checkUrl(body.url, preset);
      if (body.transformation !== undefined) checkTransformation(body.transformation);
      const endpointId = newId('ep');
      const secret = generateSecret();
      const now = Date.now();
      const opSecret = body.operationalWebhook ? generateSecret() : undefined;
      if (body.operationalWebhook) await checkUrl(body.operationalWebhook.url, 'standard');
      const input = {
        endpointId,
        tenantId,
        config: {
          url: body.url,
          description: body.description,
          eventTypes: body.eventTypes,
          preset,
          policy: body.policy,
          createdBy: body.createdBy,
          operationalWebhook: body.operationalWebhook
            ? { url: body.operationalWebhook.url, secrets: [opSecret!] }
            : undefined,
          transformation: body.transformation,
          // Issue 14.15: absent is `none`, under every preset (railhook included).
          verification: body.verification,
        },
        secrets: [{ secret, createdAt: now }],
        createdAt: now,
      };
      // Issue 13.6: every endpoint is a workflow and a fan-out target of each publish. Counted
      // after the cheap checks (it asks visibility), and one create per tenant at a time so
      // concurrent creates cannot all pass the same count.
      const maxEndpoints = config.HERALD_MAX_ENDPOINTS_PER_TENANT;
      await creates.run(tenantId, async () => {
        if ((await directory.endpointCount(tenantId)) >= maxEndpoints)
          fail(409, 'endpoint_limit_reached', `At most ${maxEndpoints} endpoints per tenant`, undefined, {
            maxEndpoints,
          });
        await startEndpoint(client, settingsFrom(config).taskQueue, input);
        directory.rememberCreated(tenantId, endpointId);
      });
      // Answered from what was just started, not read back with a query: a query waits for
      // the endpoint's first workflow task, which a worker busy with a burst may take a
      // while to run, and a create must not fail because deliveries are busy.
      const health = initialHealth();
      const endpoint = publicView({
        endpointId,
        tenantId,
        config: input.config,
        health,
        banner: healthBanner(health),
        secretCount: input.secrets.length,
        createdAt: now,
        deleted: false,
        // `pending` with `challenge`: the endpoint sends its first challenge as it starts.
        verification: initialVerification(input.config.verification),
      });
      return c.json({ endpoint, secret, ...(opSecret ? { operationalWebhookSecret: opSecret } : {}) }, 201);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/',
      summary: "List the tenant's endpoints, newest first",
      responses: {
        200: {
          description: 'Endpoints',
          content: { 'application/json': { schema: z.object({ data: z.array(endpointViewSchema) }) } },
        },
      },
    }),
    async (c) => c.json({ data: (await directory.endpoints(c.get('tenantId'), true)).map(publicView) }, 200),
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/{id}',
      summary: 'One endpoint with its health and banner',
      request: { params },
      responses: { 200: viewResponse('The endpoint'), 404: problemResponse('No such endpoint') },
    }),
    async (c) => c.json(publicView(await owned(c.get('tenantId'), c.req.valid('param').id)), 200),
  );

  app.openapi(
    createRoute({
      method: 'patch',
      path: '/{id}',
      summary:
        'Change URL, description, event types, policy, operational webhook, transformation or verification ' +
        '(a new URL under verification `challenge` is verified again)',
      request: { params, body: json(patchEndpointSchema) },
      responses: {
        200: viewResponse('Updated'),
        400: problemResponse('Invalid change'),
        404: problemResponse('No such endpoint'),
      },
    }),
    async (c) => {
      const tenantId = c.get('tenantId');
      const { id } = c.req.valid('param');
      const current = await owned(tenantId, id);
      const patch = c.req.valid('json');
      if (patch.url !== undefined) await checkUrl(patch.url, current.config.preset);
      if (patch.operationalWebhook) await checkUrl(patch.operationalWebhook.url, 'standard');
      // R-RH-TRANSFORM: null removes the transformation.
      if (typeof patch.transformation === 'string') checkTransformation(patch.transformation);
      const { operationalWebhook, ...rest } = patch;
      const view = await client.workflow.getHandle(id).executeUpdate(updateEndpointUpdate, {
        args: [
          {
            ...rest,
            ...(operationalWebhook === null
              ? { operationalWebhook: null }
              : operationalWebhook
                ? {
                    operationalWebhook: {
                      url: operationalWebhook.url,
                      secrets: current.config.operationalWebhook?.secrets ?? [generateSecret()],
                    },
                  }
                : {}),
          },
        ],
      });
      directory.forgetEndpoints(tenantId);
      return c.json(publicView(view), 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/{id}',
      summary: 'Delete the endpoint; its pending deliveries end dead',
      request: { params },
      responses: { 204: { description: 'Deleted' }, 404: problemResponse('No such endpoint') },
    }),
    async (c) => {
      const tenantId = c.get('tenantId');
      const { id } = c.req.valid('param');
      await owned(tenantId, id);
      await client.workflow.getHandle(id).executeUpdate(deleteEndpointUpdate);
      directory.forgetEndpoints(tenantId);
      return c.body(null, 204);
    },
  );

  const action = (path: string, summary: string, schema: z.ZodType, run: (id: string) => Promise<unknown>) =>
    app.openapi(
      createRoute({
        method: 'post',
        path: `/{id}/${path}`,
        summary,
        request: { params },
        responses: {
          200: {
            description: 'Done',
            content: { 'application/json': { schema } },
          },
          404: problemResponse('No such endpoint'),
        },
      }),
      async (c) => {
        const tenantId = c.get('tenantId');
        const { id } = c.req.valid('param');
        await owned(tenantId, id);
        const result = (await run(id)) as Record<string, unknown>;
        directory.forgetEndpoints(tenantId);
        return c.json(result, 200);
      },
    );

  // Issue 14.15: repeats the challenge and answers with what came of it.
  app.openapi(
    createRoute({
      method: 'post',
      path: '/{id}/verify',
      summary: 'Send the verification challenge again and answer with the outcome',
      description:
        'Under verification `challenge` only. 200 with `verified` and the new verification state; `result` ' +
        'holds the HTTP status and, when not verified, the code (http_<status>, network_<CODE>, timeout, ' +
        'private_address, challenge_mismatch, ...). The answer comes once the receiver answered or timed out.',
      request: { params },
      responses: {
        200: {
          description: 'The challenge was sent',
          content: { 'application/json': { schema: verifyResultSchema } },
        },
        404: problemResponse('No such endpoint'),
        409: problemResponse('verification_not_enabled: the endpoint has verification `none`'),
      },
    }),
    async (c) => {
      const tenantId = c.get('tenantId');
      const { id } = c.req.valid('param');
      const current = await owned(tenantId, id);
      if (current.config.verification !== 'challenge')
        fail(
          409,
          'verification_not_enabled',
          'The endpoint does not use verification',
          'Set "verification": "challenge" first',
          { path: 'verification' },
        );
      const r = await client.workflow.getHandle(id).executeUpdate(verifyEndpointUpdate);
      directory.forgetEndpoints(tenantId);
      return c.json({ verified: r.verification.status === 'verified', ...r }, 200);
    },
  );

  action('pause', 'Pause (R-SMENGO-PAUSE; Bird: writable status paused)', endpointViewSchema, async (id) =>
    publicView(await client.workflow.getHandle(id).executeUpdate(pauseEndpointUpdate)),
  );
  action(
    'resume',
    'Resume or re-enable (Smengo: send a test, see 2xx, enable)',
    endpointViewSchema,
    async (id) => publicView(await client.workflow.getHandle(id).executeUpdate(resumeEndpointUpdate)),
  );
  action('test', 'Send a test delivery now, whatever the endpoint state', testResultSchema, (id) =>
    client.workflow.getHandle(id).executeUpdate(sendTestUpdate),
  );
  action(
    'rotate-secret',
    'New signing secret; the old one keeps signing for graceSeconds (default 24 h)',
    rotateSecretResultSchema,
    async (id) => {
      const secret = generateSecret();
      const endpoint = await client.workflow
        .getHandle(id)
        .executeUpdate(rotateSecretUpdate, { args: [{ secret, graceSeconds: 24 * 3600 }] });
      return { endpoint: publicView(endpoint), secret };
    },
  );

  return app;
}
