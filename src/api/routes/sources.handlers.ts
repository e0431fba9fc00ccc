import type { RouteHandler } from '@hono/zod-openapi';
import type { Client } from '@temporalio/client';
import type { Config } from '../../config.js';
import * as core from '../../core/sources.js';
import type { SourceCache } from '../../inbound/source-cache.js';
import { urlCheckOptionsFor } from '../../own-ports.js';
import { checkEndpointUrl } from '../../policy/url-check.js';
import { settingsFrom } from '../../settings.js';
import type { SourceView } from '../../shared/source-types.js';
import { temporalSourceStore } from '../../store/sources.js';
import type { TenantEnv } from '../auth.js';
import { router } from '../openapi.js';
import { OneAtATime } from '../one-at-a-time.js';
import { fail } from '../problem.js';
import { orProblem } from '../refusal-problem.js';
import { checkTransformation } from '../transformation-check.js';
import * as routes from './sources.routes.js';

/**
 * Issue 13.7: the ingest URL holds the ingest id, which only the tenant sees; `sourceId`
 * is the public id (a legacy source's view, from older workers, may lack `ingestId`).
 */
const present = (reqUrl: string, { ingestId, ...v }: SourceView) => ({
  ...v,
  ingestUrl: `${new URL(reqUrl).origin}/in/${ingestId ?? v.sourceId}`,
});

/** R-RH-INBOUND: a tenant's inbound sources and their destinations. */
export function sourcesRouter(deps: { client: Client; config: Config; sources: SourceCache }) {
  const app = router<TenantEnv>();
  const store = temporalSourceStore({
    client: deps.client,
    taskQueue: settingsFrom(deps.config).taskQueue,
    sources: deps.sources,
  });
  const urlCheck = urlCheckOptionsFor(deps.config);
  const creates = new OneAtATime();
  const limits: core.SourceLimits = {
    maxSources: deps.config.HERALD_MAX_SOURCES_PER_TENANT,
    oneAtATime: (tenantId, task) => creates.run(tenantId, task),
  };

  /** R-URL, as for endpoints; the address itself is checked at send time (R-SSRF). */
  const checkUrl = (url: string, path: string) => {
    const r = checkEndpointUrl(url, urlCheck);
    if (!r.ok) fail(400, r.code, 'The destination URL is not allowed', r.message, { path });
  };
  const checkDestination = (d: core.DestinationRequest, path: string) => {
    checkUrl(d.url, path);
    if (d.transformation !== undefined)
      checkTransformation(d.transformation, path.replace(/url$/, 'transformation'));
  };

  const create: RouteHandler<typeof routes.create, TenantEnv> = async (c) => {
    const body = c.req.valid('json');
    (body.destinations ?? []).forEach((d, i) => checkDestination(d, `destinations.${i}.url`));
    const { source, secret } = await orProblem(core.createSource(store, c.get('tenantId'), body, limits));
    return c.json({ source: present(c.req.url, source), ...(secret ? { secret } : {}) }, 201);
  };

  const list: RouteHandler<typeof routes.list, TenantEnv> = async (c) => {
    const views = await core.listSources(store, c.get('tenantId'));
    return c.json({ data: views.map((v) => present(c.req.url, v)) }, 200);
  };

  const get: RouteHandler<typeof routes.get, TenantEnv> = async (c) =>
    c.json(
      present(
        c.req.url,
        await orProblem(core.ownedSource(store, c.get('tenantId'), c.req.valid('param').id)),
      ),
      200,
    );

  const patch: RouteHandler<typeof routes.patch, TenantEnv> = async (c) => {
    const { source, secret } = await orProblem(
      core.patchSource(store, c.get('tenantId'), c.req.valid('param').id, c.req.valid('json')),
    );
    return c.json({ source: present(c.req.url, source), ...(secret ? { secret } : {}) }, 200);
  };

  const remove: RouteHandler<typeof routes.remove, TenantEnv> = async (c) => {
    await orProblem(core.deleteSource(store, c.get('tenantId'), c.req.valid('param').id));
    return c.body(null, 204);
  };

  const addDestination: RouteHandler<typeof routes.addDestination, TenantEnv> = async (c) => {
    const req = c.req.valid('json');
    const { destination, source } = await orProblem(
      core.addDestination(store, c.get('tenantId'), c.req.valid('param').id, req, () =>
        checkDestination(req, 'url'),
      ),
    );
    return c.json({ destination, source: present(c.req.url, source) }, 201);
  };

  const updateDestination: RouteHandler<typeof routes.updateDestination, TenantEnv> = async (c) => {
    const { id, destinationId } = c.req.valid('param');
    const p = c.req.valid('json');
    const view = await orProblem(
      core.updateDestination(store, c.get('tenantId'), id, destinationId, p, () => {
        if (p.url !== undefined) checkUrl(p.url, 'url');
        if (typeof p.transformation === 'string') checkTransformation(p.transformation);
      }),
    );
    return c.json(present(c.req.url, view), 200);
  };

  const removeDestination: RouteHandler<typeof routes.removeDestination, TenantEnv> = async (c) => {
    const { id, destinationId } = c.req.valid('param');
    const view = await orProblem(core.removeDestination(store, c.get('tenantId'), id, destinationId));
    return c.json(present(c.req.url, view), 200);
  };

  app.openapi(routes.create, create);
  app.openapi(routes.list, list);
  app.openapi(routes.get, get);
  app.openapi(routes.patch, patch);
  app.openapi(routes.remove, remove);
  app.openapi(routes.addDestination, addDestination);
  app.openapi(routes.updateDestination, updateDestination);
  app.openapi(routes.removeDestination, removeDestination);
  return app;
}
