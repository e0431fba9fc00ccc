import type { Context } from 'hono';
import type { ReplayWindowInput } from '../../activities/replay-activities.js';
import { recoveryOf } from '../../policy/policy.js';
import { windowReplayBounds } from '../../policy/replay-window.js';
import { REPLAY_WINDOW_WORKFLOW } from '../../shared/names.js';
import { SA_ENDPOINT, SA_TENANT } from '../../shared/search-attributes.js';
import { admitReplayUpdate } from '../../shared/tenant-messages.js';
import type { ReplayKind } from '../../shared/tenant-types.js';
import type { TenantEnv } from '../auth.js';
import type { Directory } from '../../store/directory.js';
import { newId } from '../keys.js';
import { ProblemError, fail } from '../problem.js';
import { tryEach } from '../../shared/bounded-map.js';
import { router } from '../openapi.js';
import { orProblem, orProblemNow } from '../refusal-problem.js';
import { groupFailures, replayDelivery, replayModeOf, type Grouped } from '../../core/replay.js';
import { temporalReplayStore } from '../../store/replay.js';
import { ownedDelivery, type DeliveryRef } from '../../store/deliveries.js';
import { attemptCount, lastError, presentState } from '../../shared/delivery-view.js';
import type { RouterDeps } from '../router-deps.js';
import { settingsFrom } from '../../settings.js';
import * as routes from './replay.routes.js';

const previewItem = (g: Grouped) => ({
  id: g.ref.id,
  endpointId: g.ref.endpointId,
  eventType: g.ref.eventType,
  eventId: g.ref.eventId,
  status: g.state.status,
  createdAt: g.ref.createdAt,
  attemptCount: attemptCount(g.state),
  lastError: lastError(g.state) ?? null,
  ...(g.state.nextAttemptAt ? { nextAttemptAt: g.state.nextAttemptAt } : {}),
  ...(g.reason ? { reason: g.reason } : {}),
});

/** R-DT-REPLAY (one delivery, bulk "replay failures", preview) and R-BIRD-REPLAY (window). */
export function replayRouter(deps: RouterDeps & { directory: Directory }) {
  const app = router<TenantEnv>();
  const { client, config, directory } = deps;

  /**
   * Every replay request is counted by the tenant workflow first: 30 per minute
   * (R-DT-REPLAY), and window replays 20 per UTC day (R-BIRD-REPLAY).
   */
  const admit = async (c: Context<TenantEnv>, kind: ReplayKind) => {
    const r = await client.workflow
      .getHandle(c.get('tenantId'))
      .executeUpdate(admitReplayUpdate, { args: [{ kind }] });
    if (r.allowed) return;
    c.header('Retry-After', String(r.retryAfterSeconds));
    if (r.code === 'WebhookReplayQuotaExceeded')
      fail(
        429,
        r.code,
        'Daily replay quota exceeded',
        'A tenant may request 20 window replays per UTC day.',
        {
          retryAfterSeconds: r.retryAfterSeconds,
        },
      );
    fail(429, r.code, 'Too many replay requests', 'A tenant may send 30 replay requests per minute.', {
      retryAfterSeconds: r.retryAfterSeconds,
    });
  };

  const store = temporalReplayStore(client, directory);
  const now = deps.now ?? Date.now;
  const replayOne = (ref: DeliveryRef) => orProblem(replayDelivery(store, ref, now()));
  const group = (tenantId: string, endpointId?: string) => groupFailures(store, tenantId, endpointId, now());

  app.openapi(routes.replayOne, async (c) => {
    const tenantId = c.get('tenantId');
    // A request naming nothing of the tenant's is a 404 and spends no quota.
    const { ref } =
      (await ownedDelivery(client, tenantId, c.req.valid('param').id)) ??
      fail(404, 'delivery_not_found', 'No such delivery');
    orProblemNow(() => replayModeOf(ref));
    await admit(c, 'request');
    return c.json(presentState(ref, await replayOne(ref)), 202);
  });

  app.openapi(routes.failuresPreview, async (c) => {
    const g = await group(c.get('tenantId'), c.req.valid('query').endpointId);
    return c.json(
      {
        blocked: g.blocked.map(previewItem),
        waiting: g.waiting.map(previewItem),
        ready: g.ready.map(previewItem),
        counts: { blocked: g.blocked.length, waiting: g.waiting.length, ready: g.ready.length },
        truncated: g.truncated,
      },
      200,
    );
  });

  app.openapi(routes.replayFailures, async (c) => {
    const tenantId = c.get('tenantId');
    await admit(c, 'request');
    const g = await group(tenantId, c.req.valid('query').endpointId);
    const { done: replayed, failed } = await tryEach(
      g.ready,
      8,
      async ({ ref }) => (await replayOne(ref), ref.id),
      {
        codeOf: (e) => (e instanceof ProblemError ? e.code : undefined),
        idOf: ({ ref }) => ref.id,
        what: 'replay',
      },
    );
    return c.json(
      {
        replayed,
        blocked: g.blocked.map((x) => x.ref.id),
        waiting: g.waiting.map((x) => x.ref.id),
        failed,
      },
      202,
    );
  });

  app.openapi(routes.replayWindow, async (c) => {
    const tenantId = c.get('tenantId');
    const body = c.req.valid('json');
    const endpoint = await directory.endpoint(tenantId, body.endpointId);
    if (!endpoint) fail(404, 'endpoint_not_found', 'No such endpoint');
    if (!recoveryOf(endpoint.config.preset).windowReplay)
      fail(
        409,
        'window_replay_not_offered',
        'This endpoint offers no window replay',
        `Its preset (${endpoint.config.preset}) offers no replay; read the events back through the events API.`,
      );
    const now = Date.now();
    // since defaults to 24 h before the request (issue 14.7), at most 3 days back.
    const bounds = windowReplayBounds(body, now);
    if (!bounds.ok) fail(400, bounds.code, '`since` is after `until`', bounds.message, { path: bounds.path });
    const { sinceMs: since, untilMs: until } = bounds;
    // Counted also when the endpoint is paused (SPEC §5); the job then sends nothing.
    await admit(c, 'window');
    const input: ReplayWindowInput = {
      tenantId,
      endpointId: endpoint.endpointId,
      since: new Date(since).toISOString(),
      until: new Date(until).toISOString(),
      requestedAt: new Date(now).toISOString(),
    };
    await client.workflow.start(REPLAY_WINDOW_WORKFLOW, {
      workflowId: newId('rw'),
      taskQueue: settingsFrom(config).taskQueue,
      args: [input],
      typedSearchAttributes: [
        { key: SA_TENANT, value: tenantId },
        { key: SA_ENDPOINT, value: endpoint.endpointId },
      ],
    });
    return c.body(null, 202);
  });

  return app;
}
