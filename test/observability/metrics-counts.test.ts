// Issue 20 ("must show"): /metrics after a run of successful, failing, deferred and
// dead-lettered deliveries, checked against what happened, number by number. Also: the
// metrics interceptor leaves a successful delivery's history exactly as it was.
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { startObservabilityServer, type ObservabilityServer } from '../../src/observability/server.js';
import { temporalReachable, workerPolling } from '../../src/observability/readiness.js';
import { createHeraldWorker } from '../../src/worker.js';
import { buildWorkflowBundle } from '../../src/workflow-bundle.js';
import { jsonOf as json, newTenant, type TenantSession } from '../helpers/api.js';
import { Receiver } from '../helpers/receiver.js';
import { devServerClients, testConfig, workflowBundle } from '../helpers/temporal.js';
import { parseMetrics, sample } from '../../src/observability/prometheus-text.js';

type Delivery = { id: string; status: string; attempts: Array<{ kind: string; code?: string }> };

describe('issue 20: Herald metrics count what happened', () => {
  let t: Awaited<ReturnType<typeof devServerClients>>;
  let app: ReturnType<typeof createApp>;
  let tenant: TenantSession;
  let listener: ObservabilityServer;
  let base: string;
  const stops: Array<() => Promise<void>> = [];
  const receiver = new Receiver();
  /** Requests seen per path, so a path can fail its first N. */
  const failFirst = new Map<string, number>();

  const endpoint = async (path: string, type: string, policy: object) =>
    (
      await json<{ endpoint: { endpointId: string } }>(
        tenant.call('POST', '/v1/endpoints', { url: `${base}${path}`, eventTypes: [type], policy }),
        201,
      )
    ).endpoint.endpointId;
  const publish = async (type: string) =>
    (
      await json<{ deliveries: Array<{ id: string }> }>(
        tenant.call('POST', '/v1/events', { type, payload: { n: 1 } }),
        202,
      )
    ).deliveries[0]!.id;
  const delivery = (id: string) => json<Delivery>(tenant.call('GET', `/v1/deliveries/${id}`), 200);
  const until = async (id: string, pred: (d: Delivery) => boolean, ms = 60_000) => {
    const end = Date.now() + ms;
    for (;;) {
      const d = await delivery(id);
      if (pred(d)) return d;
      if (Date.now() > end) throw new Error(`delivery ${id} stuck: ${JSON.stringify(d)}`);
      await delay(200);
    }
  };
  const scrape = async () =>
    parseMetrics(await (await fetch(`http://127.0.0.1:${listener.port}/metrics`)).text());

  async function worker(queueOverrides: Record<string, string>, bundle: { code: string }) {
    const config = testConfig(queueOverrides);
    const { worker: w, close } = await createHeraldWorker({
      connection: t.nativeConnection,
      config,
      client: t.client,
      workflowBundle: bundle,
    });
    const running = w.run();
    stops.push(async () => {
      if (w.getState() === 'RUNNING') w.shutdown();
      await running;
      await close();
    });
    return { config, worker: w };
  }

  beforeAll(async () => {
    let bundle: { code: string };
    [t, base, bundle] = await Promise.all([
      devServerClients(),
      receiver.start(),
      // The bundle a prebuilt worker runs (the image, `npm run stack`): with the interceptors.
      buildWorkflowBundle({
        trace() {},
        debug() {},
        info() {},
        warn() {},
        error: console.error,
        log() {},
      }).then((code) => ({ code })),
    ]);
    receiver.respondWith((r, _i, res) => {
      const left = failFirst.get(r.path) ?? 0;
      if (r.path.startsWith('/dead') || left > 0) {
        failFirst.set(r.path, left - 1);
        res.writeHead(500).end('no');
      } else res.writeHead(200).end('ok');
    });
    const { config, worker: w } = await worker({}, bundle);
    app = createApp({ client: t.client, config });
    tenant = await newTenant(app);
    listener = await startObservabilityServer({
      host: '127.0.0.1',
      port: 0,
      checks: [temporalReachable(t.nativeConnection), workerPolling(w)],
    });
  });

  afterAll(async () => {
    await listener?.close();
    for (const s of stops.reverse()) await s();
    await t?.close();
    await receiver.stop();
  });

  it('counts successes, retries, a deferral and a dead letter exactly, and the publishes by answer code', async () => {
    const policy = { maxAttempts: 3, retryDelays: [2], timeoutSeconds: 5 };
    await endpoint('/ok', 'm.ok', policy);
    // 5 s x [0.9, 1.1): the pause below has at least 4.5 s to land before the retry.
    const flaky = await endpoint('/flaky', 'm.flaky', { ...policy, retryDelays: [5] });
    await endpoint('/dead', 'm.dead', { maxAttempts: 2, retryDelays: [1], timeoutSeconds: 5 });

    // Two plain successes.
    const ok = [await publish('m.ok'), await publish('m.ok')];
    // One failure, then the endpoint is paused before the retry: the retry is deferred,
    // and once resumed it succeeds.
    failFirst.set('/flaky', 1);
    const f = await publish('m.flaky');
    await until(f, (d) => d.attempts.some((a) => a.kind === 'attempt'));
    await json(tenant.call('POST', `/v1/endpoints/${flaky}/pause`), 200);
    await until(f, (d) => d.attempts.some((a) => a.kind === 'deferral'));
    await json(tenant.call('POST', `/v1/endpoints/${flaky}/resume`), 200);
    // Two failures, both the attempts it had: a dead letter.
    const dead = await publish('m.dead');
    // And a publish the API refuses.
    await json(tenant.call('POST', '/v1/events', { payload: {} }), 400);

    for (const id of ok) await until(id, (d) => d.status === 'succeeded');
    const flakyEnd = await until(f, (d) => d.status === 'succeeded');
    const deadEnd = await until(dead, (d) => d.status === 'exhausted');
    expect(flakyEnd.attempts.map((a) => a.kind)).toEqual(['attempt', 'deferral', 'attempt']);
    expect(deadEnd.attempts.map((a) => a.kind)).toEqual(['attempt', 'attempt']);

    // Sinks are flushed after each workflow task; give the last one a moment.
    await delay(300);
    const m = await scrape();
    const std = { kind: 'delivery', preset: 'standard' };
    expect(sample(m, 'herald_deliveries_started_total', std)).toBe(4);
    expect(sample(m, 'herald_attempts_total', { ...std, outcome: 'success' })).toBe(3);
    expect(sample(m, 'herald_attempts_total', { ...std, outcome: 'retry' })).toBe(2);
    expect(sample(m, 'herald_attempts_total', { ...std, outcome: 'dead_letter' })).toBe(1);
    expect(
      sample(m, 'herald_attempts_total', { ...std, outcome: 'deferred', reason: 'endpoint_paused' }),
    ).toBe(1);
    expect(sample(m, 'herald_attempts_total', { outcome: 'refused' })).toBe(0);
    // Every request the receiver got was timed once.
    expect(sample(m, 'herald_attempt_duration_seconds_count', {})).toBe(receiver.requests.length);
    expect(receiver.requests).toHaveLength(6);
    expect(sample(m, 'herald_deliveries_ended_total', { ...std, status: 'succeeded' })).toBe(3);
    expect(sample(m, 'herald_deliveries_ended_total', { ...std, status: 'exhausted' })).toBe(1);
    expect(sample(m, 'herald_endpoint_transitions_total', { from: 'active', to: 'paused' })).toBe(1);
    expect(sample(m, 'herald_endpoint_transitions_total', { from: 'paused', to: 'active' })).toBe(1);
    expect(sample(m, 'herald_api_requests_total', { route: 'publish', code: '202' })).toBe(4);
    expect(sample(m, 'herald_api_requests_total', { route: 'publish', code: '400' })).toBe(1);
    expect(sample(m, 'herald_api_request_duration_seconds_count', { route: 'publish' })).toBe(5);
    // Tenant and endpoint labels are opt-in (HERALD_METRICS_TENANT_LABELS).
    expect(m.some((s) => 'tenant' in s.labels || 'endpoint' in s.labels)).toBe(false);
  });

  it('/readyz is ready while Temporal answers and the worker polls; /healthz is plain', async () => {
    expect((await fetch(`http://127.0.0.1:${listener.port}/healthz`)).status).toBe(200);
    const r = await fetch(`http://127.0.0.1:${listener.port}/readyz`);
    expect(r.status).toBe(200);
  });

  it("keeps a successful delivery's history event for event the same as without the interceptor", async () => {
    // The same delivery on a worker whose bundle has no Herald interceptor.
    const plain = await worker({}, workflowBundle());
    const plainApp = createApp({ client: t.client, config: plain.config });
    const plainTenant = await newTenant(plainApp);
    const shape = async (session: TenantSession, a: ReturnType<typeof createApp>) => {
      void a;
      await json(session.call('POST', '/v1/endpoints', { url: `${base}/ok`, eventTypes: ['h.ok'] }), 201);
      const id = (
        await json<{ deliveries: Array<{ id: string }> }>(
          session.call('POST', '/v1/events', { type: 'h.ok', payload: {} }),
          202,
        )
      ).deliveries[0]!.id;
      const end = Date.now() + 30_000;
      while (
        (await json<Delivery>(session.call('GET', `/v1/deliveries/${id}`), 200)).status !== 'succeeded'
      ) {
        if (Date.now() > end) throw new Error('not delivered');
        await delay(200);
      }
      const history = await t.client.workflow.getHandle(id).fetchHistory();
      // The events the workflow's commands made. Workflow-task events are left out: how many
      // tasks a run takes depends on the machine (a task timed out under load is retried), and
      // an interceptor can add events only through commands.
      return history
        .events!.filter((ev) => !ev.workflowTaskScheduledEventAttributes)
        .filter((ev) => !ev.workflowTaskStartedEventAttributes)
        .filter((ev) => !ev.workflowTaskCompletedEventAttributes)
        .filter((ev) => !ev.workflowTaskTimedOutEventAttributes)
        .filter((ev) => !ev.workflowTaskFailedEventAttributes)
        .map((ev) => String(ev.eventType));
    };
    const withInterceptor = await shape(tenant, app);
    const without = await shape(plainTenant, plainApp);
    expect(withInterceptor).toEqual(without);
    expect(withInterceptor.length).toBeGreaterThanOrEqual(3);
  });
});
