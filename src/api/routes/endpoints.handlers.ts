import type { Client } from '@temporalio/client';
import type { Config } from '../../config.js';
import type { Resolver } from '../../activities/dns-resolve.js';
import * as core from '../../core/endpoints.js';
import { parseCidrList } from '../../policy/address.js';
import { urlCheckOptionsFor } from '../../own-ports.js';
import { settingsFrom } from '../../settings.js';
import type { EndpointView } from '../../shared/endpoint-types.js';
import { generateSecret } from '../../signing/standard-webhooks.js';
import type { Directory } from '../../store/directory.js';
import { temporalEndpointStore } from '../../store/endpoints.js';
import type { TenantEnv } from '../auth.js';
import { newId } from '../keys.js';
import { OneAtATime } from '../one-at-a-time.js';
import { router } from '../openapi.js';
import { orProblem } from '../refusal-problem.js';
import { checkHostAddresses } from '../url-address-check.js';
import * as routes from './endpoints.routes.js';

/** The view tenants get: an operational webhook's signing secrets are shown once, at creation. */
function publicView(v: EndpointView): EndpointView {
  const ow = v.config.operationalWebhook;
  return ow ? { ...v, config: { ...v.config, operationalWebhook: { url: ow.url } as typeof ow } } : v;
}

export function endpointsRouter(deps: {
  client: Client;
  config: Config;
  directory: Directory;
  /** Issue 14.9: the save-time address check's resolver; the sender's by default. */
  resolve?: Resolver;
}) {
  const app = router<TenantEnv>();
  const { client, config, directory } = deps;
  const store = temporalEndpointStore({ client, taskQueue: settingsFrom(config).taskQueue, directory });
  const allow = parseCidrList(config.HERALD_ALLOW_ADDRESSES);
  const creates = new OneAtATime();
  const settings: core.EndpointSettings = {
    defaultPreset: config.HERALD_DEFAULT_PRESET,
    maxEndpoints: config.HERALD_MAX_ENDPOINTS_PER_TENANT,
    urlCheck: urlCheckOptionsFor(config),
    checkAddresses: (url) => checkHostAddresses(url, { allow, resolve: deps.resolve }),
    oneAtATime: (tenantId, task) => creates.run(tenantId, task),
    newEndpointId: () => newId('ep'),
    newSecret: generateSecret,
    now: Date.now,
  };

  app.openapi(routes.createEndpoint, async (c) => {
    const r = await orProblem(core.createEndpoint(store, settings, c.get('tenantId'), c.req.valid('json')));
    return c.json({ ...r, endpoint: publicView(r.endpoint) }, 201);
  });

  app.openapi(routes.listEndpoints, async (c) =>
    c.json({ data: (await directory.endpoints(c.get('tenantId'), true)).map(publicView) }, 200),
  );

  app.openapi(routes.getEndpoint, async (c) => {
    const v = await orProblem(core.getEndpoint(store, c.get('tenantId'), c.req.valid('param').id));
    return c.json(publicView(v), 200);
  });

  app.openapi(routes.patchEndpoint, async (c) => {
    const { id } = c.req.valid('param');
    const v = await orProblem(
      core.changeEndpoint(store, settings, c.get('tenantId'), id, c.req.valid('json')),
    );
    return c.json(publicView(v), 200);
  });

  app.openapi(routes.deleteEndpoint, async (c) => {
    await orProblem(core.deleteEndpoint(store, c.get('tenantId'), c.req.valid('param').id));
    return c.body(null, 204);
  });

  app.openapi(routes.verifyEndpoint, async (c) =>
    c.json(await orProblem(core.verifyEndpoint(store, c.get('tenantId'), c.req.valid('param').id)), 200),
  );

  app.openapi(routes.pauseEndpoint, async (c) => {
    const v = await orProblem(
      core.endpointAction(store, c.get('tenantId'), c.req.valid('param').id, store.pause),
    );
    return c.json(publicView(v), 200);
  });
  app.openapi(routes.resumeEndpoint, async (c) => {
    const v = await orProblem(
      core.endpointAction(store, c.get('tenantId'), c.req.valid('param').id, store.resume),
    );
    return c.json(publicView(v), 200);
  });
  app.openapi(routes.testEndpoint, async (c) =>
    c.json(
      await orProblem(core.endpointAction(store, c.get('tenantId'), c.req.valid('param').id, store.sendTest)),
      200,
    ),
  );
  app.openapi(routes.rotateSecret, async (c) => {
    const r = await orProblem(core.rotateSecret(store, settings, c.get('tenantId'), c.req.valid('param').id));
    return c.json({ ...r, endpoint: publicView(r.endpoint) }, 200);
  });

  return app;
}
