import type { RouteHandler } from '@hono/zod-openapi';
import type { Client } from '@temporalio/client';
import type { Config } from '../../config.js';
import { ownedForward, retryForward, retryForwards, undeliveredForwards } from '../../core/forwards.js';
import { forwardBodyBytes, forwardHeaderList } from '../../inbound/forward-request.js';
import type { SourceCache } from '../../inbound/source-cache.js';
import { settingsFrom } from '../../settings.js';
import type { DeliveryInput } from '../../shared/delivery-types.js';
import { presentState } from '../../shared/delivery-view.js';
import type { DeliveryRef } from '../../store/deliveries.js';
import { temporalForwardStore } from '../../store/forwards.js';
import { overrideHeaderList, transformForSend, type Transformer } from '../../transform/send.js';
import type { TenantEnv } from '../auth.js';
import { router } from '../openapi.js';
import { fail } from '../problem.js';
import { orProblem } from '../refusal-problem.js';
import * as routes from './forwards.routes.js';

const rowOf = (r: DeliveryRef) => ({
  id: r.id,
  sourceId: r.eventType,
  destinationId: r.endpointId,
  requestId: r.eventId,
  status: r.status,
  createdAt: r.createdAt,
});

const pairs = (flat: string[]) => {
  const out: Array<[string, string]> = [];
  for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i]!, flat[i + 1]!]);
  return out;
};

/** What the forward sends: the original bytes and headers, or the transformation's request. */
async function forwardedView(sandbox: Transformer, input: DeliveryInput, attempt: number) {
  const target = input.target!;
  const fwd = target.forward!;
  const headers = forwardHeaderList(fwd, input.policy.deliveryIdHeader, input.deliveryId, attempt);
  if (!target.transformation) {
    const bytes = forwardBodyBytes(input.event.body, fwd.bodyEncoding);
    return {
      encoding: fwd.bodyEncoding,
      body: fwd.bodyEncoding === 'base64' ? bytes.toString('base64') : bytes.toString('utf8'),
      method: 'POST',
      headers: pairs(headers),
    };
  }
  const t = await transformForSend(sandbox, {
    deliveryId: input.deliveryId,
    attempt,
    event: input.event,
    target,
    timeoutSeconds: input.policy.timeoutSeconds,
    deliveryIdHeader: input.policy.deliveryIdHeader,
  });
  if (t.kind !== 'ok')
    return {
      encoding: 'utf8' as const,
      body: '',
      method: 'POST',
      headers: pairs(headers),
      transformation: target.transformation,
      transformationError: t.kind === 'none' ? 'no transformation' : t.reason,
    };
  return {
    encoding: 'utf8' as const,
    body: t.request.body,
    method: t.request.method,
    headers: pairs(overrideHeaderList(headers, t.request.headers)),
    transformation: target.transformation,
  };
}

/** R-RH-INBOUND: the forward log, its dead letters ("undelivered forwards") and their retry. */
export function forwardsRouter(deps: {
  client: Client;
  config: Config;
  sources: SourceCache;
  /** Evaluates a destination's transformation for the forward log (the app's one pool). */
  sandbox: Transformer;
}) {
  const app = router<TenantEnv>();
  const settings = settingsFrom(deps.config);
  const store = temporalForwardStore({
    client: deps.client,
    taskQueue: settings.taskQueue,
    sources: deps.sources,
  });

  const list: RouteHandler<typeof routes.list, TenantEnv> = async (c) => {
    const q = c.req.valid('query');
    const refs = await store.newest(
      c.get('tenantId'),
      { sourceId: q.sourceId, destinationId: q.destinationId, statuses: q.status && [q.status] },
      q.limit,
    );
    return c.json({ data: refs.map(rowOf) }, 200);
  };

  const undelivered: RouteHandler<typeof routes.undelivered, TenantEnv> = async (c) => {
    const { sourceId, limit } = c.req.valid('query');
    const rows = await undeliveredForwards(store, c.get('tenantId'), { sourceId }, limit);
    const data = rows.map(({ ref, ...r }) => ({ ...rowOf(ref), ...r }));
    return c.json({ data }, 200);
  };

  const retryMany: RouteHandler<typeof routes.retryMany, TenantEnv> = async (c) =>
    c.json(
      await retryForwards(store, settings.resolvePolicy, c.get('tenantId'), c.req.valid('json').ids),
      202,
    );

  const retryOne: RouteHandler<typeof routes.retryOne, TenantEnv> = async (c) =>
    c.json(
      await orProblem(
        retryForward(store, settings.resolvePolicy, c.get('tenantId'), c.req.valid('param').id),
      ),
      202,
    );

  const get: RouteHandler<typeof routes.get, TenantEnv> = async (c) => {
    const ref = await orProblem(ownedForward(store, c.get('tenantId'), c.req.valid('param').id));
    const [s, input] = await Promise.all([store.state(ref.id), store.input(ref.id)]);
    const fwd = input?.target?.forward;
    if (!s || !input || !fwd)
      fail(404, 'forward_not_found', 'No such forward', 'Its log is past the retention period');
    const view = presentState(ref, s);
    const forwarded = await forwardedView(deps.sandbox, input, Math.max(1, s.attemptsInRound));
    return c.json(
      {
        id: ref.id,
        sourceId: fwd.sourceId,
        destinationId: fwd.destinationId,
        requestId: fwd.requestId,
        status: s.status,
        createdAt: ref.createdAt,
        ...(fwd.retryOf ? { retryOf: fwd.retryOf } : {}),
        url: input.target!.url,
        original: {
          encoding: fwd.bodyEncoding,
          body: input.event.body,
          receivedAt: fwd.receivedAt,
          headers: fwd.headers,
        },
        forwarded,
        attemptCount: view.attemptCount,
        attemptBudget: view.attemptBudget,
        ...(view.lastError ? { lastError: view.lastError } : {}),
        ...(view.nextAttemptAt ? { nextAttemptAt: view.nextAttemptAt } : {}),
        attempts: view.attempts,
      },
      200,
    );
  };

  app.openapi(routes.list, list);
  app.openapi(routes.undelivered, undelivered);
  app.openapi(routes.retryMany, retryMany);
  app.openapi(routes.retryOne, retryOne);
  app.openapi(routes.get, get);
  return app;
}
