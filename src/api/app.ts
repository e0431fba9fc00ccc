import { OpenAPIHono } from '@hono/zod-openapi';
import type { Client } from '@temporalio/client';
import { HTTPException } from 'hono/http-exception';
import type { Config } from '../config.js';
import { tenantAuth, type TenantEnv } from './auth.js';
import { requestBodyLimit } from './body-limit.js';
import { requestObservability } from '../observability/api-requests.js';
import { Directory } from '../store/directory.js';
import { isTemporalOutage } from '../temporal/outage.js';
import { errorFields, log } from '../observability/log.js';
import { ProblemError, problem } from './problem.js';
import { adminRouter } from './routes/admin.handlers.js';
import { deadLettersRouter } from './routes/dead-letters.handlers.js';
import { deliveriesRouter } from './routes/deliveries.handlers.js';
import { endpointsRouter } from './routes/endpoints.handlers.js';
import { endpointAttemptsRouter } from './routes/endpoint-attempts.handlers.js';
import { eventsRouter } from './routes/events.handlers.js';
import { replayRouter } from './routes/replay.handlers.js';
import { forwardsRouter } from './routes/forwards.handlers.js';
import { ingestRouter } from './routes/ingest.handlers.js';
import { sourcesRouter } from './routes/sources.handlers.js';
import { SourceCache } from '../inbound/source-cache.js';
import { transformationsRouter } from './routes/transformations.handlers.js';
import { TransformSandbox, sandboxOptionsFrom } from '../transform/sandbox.js';
import type { Transformer } from '../transform/send.js';
import type { Resolver } from '../activities/dns-resolve.js';
import { docsRouter } from '../portal/docs.js';
import { UsedLinks, portalLinksRouter } from '../portal/links-route.js';
import { portalRouter } from '../portal/portal.js';
import { PortalTokens } from '../portal/tokens.js';

export interface AppDeps {
  client: Client;
  config: Config;
  /**
   * The client shares a NativeConnection with a worker on the task queue, so deliveries can
   * be started eagerly (their first workflow task comes back with the start response).
   */
  eagerStart?: boolean;
  /** R-RH-TRANSFORM: evaluates dry runs and the forward log; by default a pool of its own, started on first use. */
  sandbox?: Transformer;
  /** Issue 14.9: resolves endpoint hosts at save time; the sender's resolver by default. */
  resolve?: Resolver;
  /**
   * Issue 16: the clock recovery windows are judged by (may a closed delivery be reopened
   * now); the wall clock by default, the server's skipped time in time-skipping tests.
   */
  now?: () => number;
}

/** The HTTP API, one router per resource; dependencies come in so tests can use any client. */
export function createApp(deps: AppDeps) {
  const directory = new Directory(deps.client);
  // R-RH-TRANSFORM: one evaluator pool for the dry run and the forward log.
  const sandbox = deps.sandbox ?? new TransformSandbox(sandboxOptionsFrom(deps.config));
  const routerDeps = { ...deps, directory, sandbox };
  const app = new OpenAPIHono();
  // Issue 20: counts and times publish and ingest answers, 413s included; reads no body.
  app.use('*', requestObservability());
  // Issue 13.4: first of all, so no route (nor the authentication before it) reads more
  // of a body than its limit, however the body is sent.
  app.use('*', requestBodyLimit());

  app.get('/healthz', (c) => c.json({ ok: true }));
  // Live is not ready: an API whose Temporal is gone accepts nothing (issue 14.3), so
  // supervisors and load balancers ask this one.
  app.get('/readyz', async (c) => {
    try {
      await deps.client.connection.withDeadline(Date.now() + 2_000, () =>
        deps.client.workflowService.getSystemInfo({}),
      );
      return c.json({ ok: true });
    } catch {
      return problem(c, 503, 'temporal_unavailable', 'Temporal is not reachable');
    }
  });
  app.route('/v1/admin', adminRouter(routerDeps));
  // R-RH-INBOUND: public ingest URLs (no API key) read sources through a ~1 s cache.
  const sources = new SourceCache(deps.client);
  app.route('/in', ingestRouter({ ...routerDeps, sources }));

  // Issue 18: the portal's sessions, signed with HERALD_PORTAL_SECRET (closed without one).
  const portalTokens = deps.config.HERALD_PORTAL_SECRET
    ? new PortalTokens(deps.config.HERALD_PORTAL_SECRET)
    : undefined;
  const tenant = new OpenAPIHono<TenantEnv>();
  tenant.use('*', tenantAuth(directory, portalTokens));
  tenant.route('/endpoints', endpointsRouter(routerDeps));
  tenant.route('/endpoints', endpointAttemptsRouter(routerDeps));
  tenant.route('/events', eventsRouter(routerDeps));
  tenant.route('/transformations', transformationsRouter(routerDeps));
  tenant.route('/deliveries', deliveriesRouter(routerDeps));
  tenant.route('/dead-letters', deadLettersRouter(routerDeps));
  tenant.route('/replay', replayRouter(routerDeps));
  tenant.route('/sources', sourcesRouter({ ...routerDeps, sources }));
  tenant.route('/forwards', forwardsRouter({ ...routerDeps, sources }));
  tenant.route('/portal-links', portalLinksRouter({ config: deps.config, tokens: portalTokens }));
  app.route('/v1', tenant);
  // Issue 18: the portal calls this same app in process, as the signed-in tenant.
  app.route(
    '/portal',
    portalRouter({
      config: deps.config,
      directory,
      tokens: portalTokens,
      links: new UsedLinks(),
      api: (req) => app.fetch(req),
    }),
  );

  app.openAPIRegistry.registerComponent('securitySchemes', 'apiKey', { type: 'http', scheme: 'bearer' });
  app.doc31('/openapi.json', {
    openapi: '3.1.0',
    info: {
      title: 'Herald',
      version: '0.1.0',
      description:
        'Durable webhook delivery. Errors are application/problem+json (RFC 9457) with a stable `code`.',
    },
    security: [{ apiKey: [] }],
  });
  app.route('/', docsRouter());

  app.notFound((c) => problem(c, 404, 'not_found', 'No such resource'));
  app.onError((err, c) => {
    if (err instanceof ProblemError)
      return problem(c, err.status, err.code, err.title, err.detail, err.extra);
    if (err instanceof HTTPException) {
      if (err.status === 415)
        return problem(c, 415, 'unsupported_media_type', 'Send the body as application/json');
      // Hono's own refusals: a body that is not JSON, mostly.
      const malformed = /json/i.test(err.message);
      return problem(
        c,
        err.status === 400 || malformed ? 400 : (err.status as 400),
        malformed ? 'malformed_json' : 'bad_request',
        malformed ? 'The request body is not valid JSON' : err.message || 'Bad request',
      );
    }
    // Temporal did not answer in time (a busy worker behind a query, a restarting server),
    // or does not serve the namespace: nothing was accepted, and the same request can simply
    // be sent again.
    if (isTemporalOutage(err))
      return problem(c, 503, 'temporal_unavailable', 'Temporal did not answer in time; retry the request');
    log.error('unhandled error', errorFields(err));
    return problem(c, 500, 'internal_error', 'Herald could not complete the request');
  });
  return app;
}
