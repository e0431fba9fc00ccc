import { createRoute, z } from '@hono/zod-openapi';
import type { Client } from '@temporalio/client';
import type { Config } from '../../config.js';
import { TENANT_WORKFLOW } from '../../shared/names.js';
import { SA_TENANT } from '../../shared/search-attributes.js';
import { addApiKeyUpdate, revokeApiKeyUpdate, setSubscriptionUpdate } from '../../shared/tenant-messages.js';
import type { TenantInput } from '../../shared/tenant-types.js';
import { operatorAuth } from '../auth.js';
import type { Directory } from '../directory.js';
import { newApiKey, newId } from '../keys.js';
import { fail } from '../problem.js';
import { problemResponse, router } from '../openapi.js';

const TenantView = z
  .object({
    tenantId: z.string(),
    name: z.string(),
    billingEmail: z.string().optional(),
    subscriptionActive: z.boolean(),
    createdAt: z.number(),
    apiKeys: z.array(
      z.object({ keyId: z.string(), createdAt: z.number(), revokedAt: z.number().optional() }),
    ),
  })
  .openapi('Tenant');

const CreateTenant = z.strictObject({
  name: z.string().min(1).max(200),
  billingEmail: z.email().optional(),
});

const tenantParam = z.object({ tenantId: z.string().regex(/^tn_[A-Za-z0-9]+$/) });
const keyParams = tenantParam.extend({
  keyId: z.string().regex(/^key_[a-f0-9]+$/, 'a key id starting with key_'),
});

export function adminRouter(deps: { client: Client; config: Config; directory: Directory }) {
  const app = router();
  app.use('*', operatorAuth(deps.config));
  const { client, config, directory } = deps;

  app.openapi(
    createRoute({
      method: 'post',
      path: '/tenants',
      summary: 'Create a tenant and its first API key (shown once)',
      request: { body: { content: { 'application/json': { schema: CreateTenant } }, required: true } },
      responses: {
        201: {
          description: 'Created',
          content: { 'application/json': { schema: z.object({ tenant: TenantView, apiKey: z.string() }) } },
        },
        400: problemResponse('Invalid body'),
        401: problemResponse('No operator key'),
      },
    }),
    async (c) => {
      const body = c.req.valid('json');
      const tenantId = newId('tn');
      const input: TenantInput = {
        tenantId,
        name: body.name,
        billingEmail: body.billingEmail,
        createdAt: Date.now(),
      };
      const handle = await client.workflow.start(TENANT_WORKFLOW, {
        workflowId: tenantId,
        taskQueue: config.HERALD_TASK_QUEUE,
        args: [input],
        typedSearchAttributes: [{ key: SA_TENANT, value: tenantId }],
      });
      const key = newApiKey(tenantId);
      const tenant = await handle.executeUpdate(addApiKeyUpdate, {
        args: [{ keyId: key.keyId, hash: key.hash }],
      });
      directory.forgetTenantKeys(tenantId);
      return c.json({ tenant, apiKey: key.key }, 201);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/tenants/{tenantId}',
      request: { params: tenantParam },
      responses: {
        200: { description: 'The tenant', content: { 'application/json': { schema: TenantView } } },
        404: problemResponse('No such tenant'),
      },
    }),
    async (c) => {
      const t = await directory.tenant(c.req.valid('param').tenantId);
      if (!t) fail(404, 'tenant_not_found', 'No such tenant');
      return c.json(t, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'post',
      path: '/tenants/{tenantId}/keys',
      summary: 'Issue another API key (shown once)',
      request: { params: tenantParam },
      responses: {
        201: {
          description: 'Created',
          content: { 'application/json': { schema: z.object({ keyId: z.string(), apiKey: z.string() }) } },
        },
        404: problemResponse('No such tenant'),
      },
    }),
    async (c) => {
      const { tenantId } = c.req.valid('param');
      if (!(await directory.tenant(tenantId))) fail(404, 'tenant_not_found', 'No such tenant');
      const key = newApiKey(tenantId);
      await client.workflow
        .getHandle(tenantId)
        .executeUpdate(addApiKeyUpdate, { args: [{ keyId: key.keyId, hash: key.hash }] });
      directory.forgetTenantKeys(tenantId);
      return c.json({ keyId: key.keyId, apiKey: key.key }, 201);
    },
  );

  app.openapi(
    createRoute({
      method: 'delete',
      path: '/tenants/{tenantId}/keys/{keyId}',
      summary: 'Revoke an API key: refused at once by this API process, by the others within ~2 s',
      description:
        'The key stays listed with its `revokedAt`; revoking it again changes nothing. Other API ' +
        'processes cache keys for 2 s (up to 30 s while Temporal is slow to answer).',
      request: { params: keyParams },
      responses: {
        200: { description: 'Revoked', content: { 'application/json': { schema: TenantView } } },
        401: problemResponse('No operator key'),
        404: problemResponse('tenant_not_found or key_not_found'),
      },
    }),
    async (c) => {
      const { tenantId, keyId } = c.req.valid('param');
      const t = await directory.tenant(tenantId);
      if (!t) fail(404, 'tenant_not_found', 'No such tenant');
      if (!t.apiKeys.some((k) => k.keyId === keyId)) fail(404, 'key_not_found', 'No such API key');
      const view = await client.workflow
        .getHandle(tenantId)
        .executeUpdate(revokeApiKeyUpdate, { args: [{ keyId }] });
      // This process stops accepting the key now, not when its cached key list expires.
      directory.forgetTenantKeys(tenantId);
      return c.json(view, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'put',
      path: '/tenants/{tenantId}/subscription',
      summary: 'Set the subscription active or inactive (R-SMENGO-INACTIVE)',
      request: {
        params: tenantParam,
        body: {
          content: { 'application/json': { schema: z.strictObject({ active: z.boolean() }) } },
          required: true,
        },
      },
      responses: {
        200: { description: 'Updated', content: { 'application/json': { schema: TenantView } } },
        404: problemResponse('No such tenant'),
      },
    }),
    async (c) => {
      const { tenantId } = c.req.valid('param');
      if (!(await directory.tenant(tenantId))) fail(404, 'tenant_not_found', 'No such tenant');
      const t = await client.workflow
        .getHandle(tenantId)
        .executeUpdate(setSubscriptionUpdate, { args: [{ active: c.req.valid('json').active }] });
      return c.json(t, 200);
    },
  );

  return app;
}
