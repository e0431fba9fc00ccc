import type { RouteHandler } from '@hono/zod-openapi';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { Config } from '../../config.js';
import { settingsFrom } from '../../settings.js';
import { TENANT_WORKFLOW } from '../../shared/names.js';
import { SA_TENANT } from '../../shared/search-attributes.js';
import {
  addApiKeyUpdate,
  revokeApiKeyUpdate,
  setSubscriptionUpdate,
  setTenantRateLimitUpdate,
  tenantViewQuery,
} from '../../shared/tenant-messages.js';
import type { TenantInput, TenantView } from '../../shared/tenant-types.js';
import { SNAPSHOT_MEMO_KEY, withoutStamp } from '../../shared/snapshot-memo.js';
import { operatorAuth } from '../auth.js';
import type { Directory } from '../../store/directory.js';
import { newApiKey, newId } from '../keys.js';
import { router } from '../openapi.js';
import { fail } from '../problem.js';
import * as routes from './admin.routes.js';

export interface AdminDeps {
  client: Client;
  config: Config;
  directory: Directory;
}

/**
 * The tenant, or a 404. Only "no such workflow" is a 404: a Temporal that cannot answer
 * rejects, and the app answers 503, so an operator never concludes a tenant is gone.
 */
async function existingTenant(client: Client, tenantId: string): Promise<TenantView> {
  try {
    return withoutStamp(await client.workflow.getHandle(tenantId).query(tenantViewQuery));
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) fail(404, 'tenant_not_found', 'No such tenant');
    throw err;
  }
}

/** The operator's routes: each handler validates (the route's schemas), calls Temporal, presents. */
export function adminRouter({ client, config, directory }: AdminDeps) {
  const app = router();
  app.use('*', operatorAuth(config));

  const createTenant: RouteHandler<typeof routes.createTenant> = async (c) => {
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
      taskQueue: settingsFrom(config).taskQueue,
      args: [input],
      // Issue 16: the first view revision, there from the start (no command).
      memo: { [SNAPSHOT_MEMO_KEY]: 0 },
      typedSearchAttributes: [{ key: SA_TENANT, value: tenantId }],
    });
    const key = newApiKey(tenantId);
    const tenant = await handle.executeUpdate(addApiKeyUpdate, {
      args: [{ keyId: key.keyId, hash: key.hash }],
    });
    directory.forgetTenantKeys(tenantId);
    return c.json({ tenant, apiKey: key.key }, 201);
  };

  const getTenant: RouteHandler<typeof routes.getTenant> = async (c) =>
    c.json(await existingTenant(client, c.req.valid('param').tenantId), 200);

  const issueKey: RouteHandler<typeof routes.issueKey> = async (c) => {
    const { tenantId } = c.req.valid('param');
    await existingTenant(client, tenantId);
    const key = newApiKey(tenantId);
    await client.workflow
      .getHandle(tenantId)
      .executeUpdate(addApiKeyUpdate, { args: [{ keyId: key.keyId, hash: key.hash }] });
    directory.forgetTenantKeys(tenantId);
    return c.json({ keyId: key.keyId, apiKey: key.key }, 201);
  };

  const revokeKey: RouteHandler<typeof routes.revokeKey> = async (c) => {
    const { tenantId, keyId } = c.req.valid('param');
    const t = await existingTenant(client, tenantId);
    if (!t.apiKeys.some((k) => k.keyId === keyId)) fail(404, 'key_not_found', 'No such API key');
    const view = await client.workflow
      .getHandle(tenantId)
      .executeUpdate(revokeApiKeyUpdate, { args: [{ keyId }] });
    // This process stops accepting the key now, not when its cached key list expires.
    directory.forgetTenantKeys(tenantId);
    return c.json(view, 200);
  };

  const setTenantRateLimit: RouteHandler<typeof routes.setTenantRateLimit> = async (c) => {
    const { tenantId } = c.req.valid('param');
    await existingTenant(client, tenantId);
    const t = await client.workflow
      .getHandle(tenantId)
      .executeUpdate(setTenantRateLimitUpdate, { args: [{ rateLimit: c.req.valid('json').rateLimit }] });
    return c.json(t, 200);
  };

  const setSubscription: RouteHandler<typeof routes.setSubscription> = async (c) => {
    const { tenantId } = c.req.valid('param');
    await existingTenant(client, tenantId);
    const t = await client.workflow
      .getHandle(tenantId)
      .executeUpdate(setSubscriptionUpdate, { args: [{ active: c.req.valid('json').active }] });
    return c.json(t, 200);
  };

  app.openapi(routes.createTenant, createTenant);
  app.openapi(routes.getTenant, getTenant);
  app.openapi(routes.issueKey, issueKey);
  app.openapi(routes.revokeKey, revokeKey);
  app.openapi(routes.setSubscription, setSubscription);
  app.openapi(routes.setTenantRateLimit, setTenantRateLimit);
  return app;
}
