// Issue 20: a workflow task the server has a worker run again (its first try timed out) makes
// its metric calls a second time, and not as a replay. Each is still counted once.
import { setTimeout as delay } from 'node:timers/promises';
import type { InjectedSinks } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { HeraldMetrics } from '../../src/observability/metrics.js';
import type { HeraldMetricsSinks } from '../../src/observability/metrics-sinks.js';
import { metricsSinks } from '../../src/observability/worker-sinks.js';
import { MIN_DELIVERY_TASK_TIMEOUT_SECONDS } from '../../src/policy/inline-attempt.js';
import { createHeraldWorker } from '../../src/worker.js';
import { buildWorkflowBundle } from '../../src/workflow-bundle.js';
import { jsonOf, newTenant, type TenantSession } from '../helpers/api.js';
import { Receiver } from '../helpers/receiver.js';
import { devServerClients, testConfig } from '../helpers/temporal.js';
import { parseMetrics, sample } from '../../src/observability/prometheus-text.js';

type Delivery = { id: string; status: string; attempts: Array<{ kind: string }> };

describe('issue 20: a workflow task run again counts nothing twice', () => {
  let t: Awaited<ReturnType<typeof devServerClients>>;
  let tenant: TenantSession;
  let base: string;
  let stop: () => Promise<void> = async () => {};
  const receiver = new Receiver();
  const metrics = new HeraldMetrics();
  let held = false;

  /**
   * The worker's own sinks, but the first dead-letter call waits past the delivery's task
   * timeout: the worker completes that task too late, and the server has it run again.
   */
  function slowFirstDeadLetter(sinks: InjectedSinks<HeraldMetricsSinks>): InjectedSinks<HeraldMetricsSinks> {
    const attempt = sinks.heraldMetrics.attempt;
    return {
      heraldMetrics: {
        ...sinks.heraldMetrics,
        attempt: {
          ...attempt,
          fn: async (info, n, d, outcome, ...rest) => {
            if (outcome === 'dead_letter' && !held) {
              held = true;
              await delay((MIN_DELIVERY_TASK_TIMEOUT_SECONDS + 3) * 1000);
            }
            return attempt.fn(info, n, d, outcome, ...rest);
          },
        },
      },
    };
  }

  beforeAll(async () => {
    let code: string;
    [t, base, code] = await Promise.all([
      devServerClients(),
      receiver.start(),
      buildWorkflowBundle({ trace() {}, debug() {}, info() {}, warn() {}, error: console.error, log() {} }),
    ]);
    receiver.respondWith((_r, _i, res) => res.writeHead(500).end('no'));
    const config = testConfig();
    const { worker, close } = await createHeraldWorker({
      connection: t.nativeConnection,
      config,
      client: t.client,
      workflowBundle: { code },
      workerOptions: { sinks: slowFirstDeadLetter(metricsSinks(metrics)) },
    });
    const running = worker.run();
    stop = async () => {
      worker.shutdown();
      await running;
      await close();
    };
    tenant = await newTenant(createApp({ client: t.client, config }));
  }, 120_000);

  afterAll(async () => {
    await stop();
    await t?.close();
    await receiver.stop();
  });

  it('counts the dead letter, the retry and the end once each, though the last task ran twice', async () => {
    // A task timeout of the minimum: a one-second send fits it.
    const policy = { maxAttempts: 2, retryDelays: [1], timeoutSeconds: 1 };
    await jsonOf(
      tenant.call('POST', '/v1/endpoints', { url: `${base}/dead`, eventTypes: ['r.dead'], policy }),
      201,
    );
    const { deliveries } = await jsonOf<{ deliveries: Array<{ id: string }> }>(
      tenant.call('POST', '/v1/events', { type: 'r.dead', payload: {} }),
      202,
    );
    const id = deliveries[0]!.id;
    const end = Date.now() + 60_000;
    let d: Delivery;
    while (
      (d = await jsonOf<Delivery>(tenant.call('GET', `/v1/deliveries/${id}`), 200)).status !== 'exhausted'
    ) {
      if (Date.now() > end) throw new Error(`not exhausted: ${JSON.stringify(d)}`);
      await delay(250);
    }
    expect(d.attempts.map((a) => a.kind)).toEqual(['attempt', 'attempt']);
    // The last task did run twice: its first try timed out.
    const history = await t.client.workflow.getHandle(id).fetchHistory();
    expect(history.events!.filter((e) => e.workflowTaskTimedOutEventAttributes)).toHaveLength(1);
    expect(held).toBe(true);
    const m = parseMetrics(await metrics.registry.metrics());
    const std = { kind: 'delivery', preset: 'standard' };
    expect(sample(m, 'herald_deliveries_started_total', std)).toBe(1);
    expect(sample(m, 'herald_attempts_total', { ...std, outcome: 'retry' })).toBe(1);
    expect(sample(m, 'herald_attempts_total', { ...std, outcome: 'dead_letter' })).toBe(1);
    expect(sample(m, 'herald_attempt_duration_seconds_count', {})).toBe(2);
    expect(sample(m, 'herald_deliveries_ended_total', { ...std, status: 'exhausted' })).toBe(1);
  }, 90_000);
});
