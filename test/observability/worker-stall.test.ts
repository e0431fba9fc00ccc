// The stall watchdog on a real `npm run worker` (src/observability/stall-watchdog.ts). A true
// stall is an SDK fault seen about once in 20 slow-endpoint benches, so it cannot be made to
// order: the unit test reads the exporter text captured from one. Here the watchdog reads a
// real worker's exporter and the server's poller list, and a worker whose inline sends hold
// their workflow-task slots past the stall window is busy, not stalled.
import { hostname } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { workerSample } from '../../src/observability/worker-stall.js';
import { lastWorkflowPoll } from '../../src/temporal/worker-polls.js';
import { newTenant, jsonOf } from '../helpers/api.js';
import { Receiver } from '../helpers/receiver.js';
import { devServerClients, testConfig } from '../helpers/temporal.js';
import { ChildHerald } from './herald-processes.js';

const HOLD_MS = 12_000;

describe('the stall watchdog on a real worker', () => {
  const receiver = new Receiver((_r, _i, res) => setTimeout(() => res.writeHead(200).end('ok'), HOLD_MS));
  let worker: ChildHerald;
  let t: Awaited<ReturnType<typeof devServerClients>>;
  let base: string;
  const taskQueue = `stall-${Math.random().toString(36).slice(2, 8)}`;

  beforeAll(async () => {
    [t, base] = await Promise.all([devServerClients(), receiver.start()]);
    // Four workflow-task slots, half of which inline first attempts may hold (the rest serve
    // the endpoint reads those attempts make); a 2 s stall window.
    worker = new ChildHerald('src/worker.ts', {
      HERALD_TASK_QUEUE: taskQueue,
      HERALD_WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: '4',
      HERALD_WORKER_STALL_SECONDS: '2',
    });
    await worker.start('worker polling');
  }, 120_000);

  afterAll(async () => {
    await worker?.stop();
    await receiver.stop();
    await t?.close();
  });

  it('a worker whose inline slots are held by slow sends for longer than the window keeps running and stays ready', async () => {
    const tenant = await newTenant(createApp({ client: t.client, config: testConfig({ HERALD_TASK_QUEUE: taskQueue }) }));
    // Two endpoints: an endpoint's share of two inline slots is one.
    for (const n of [1, 2])
      await jsonOf(tenant.call('POST', '/v1/endpoints', { url: `${base}/slow${n}`, eventTypes: [`slow${n}.e`] }), 201);
    for (const n of [1, 2]) await jsonOf(tenant.call('POST', '/v1/events', { type: `slow${n}.e`, payload: {} }), 202);
    await receiver.waitFor(2, 20_000);

    // The watchdog's own reading of this worker, from its exporter: two slots held by the two
    // local activities (the inline sends).
    const text = await fetch(`http://127.0.0.1:${worker.sdkMetricsPort}/metrics`).then((r) => r.text());
    const sample = workerSample(text, taskQueue, { numInFlightWorkflowActivations: 0, numInFlightLocalActivities: 0 });
    expect(sample).toMatchObject({ localActivitySlotsUsed: 2 });
    expect(sample!.workflowSlotsUsed).toBeGreaterThanOrEqual(2);
    expect(sample!.workflowSlotsUsed + sample!.workflowSlotsAvailable).toBe(4);

    // Past the window three times over, the worker is still there and ready.
    await delay(7_000);
    expect(worker.child!.exitCode).toBeNull();
    expect((await fetch(`${worker.metricsUrl}/readyz`)).status).toBe(200);
    expect(worker.output).not.toContain('polls no workflow tasks');
    // The server's side, which the watchdog asks before it calls a stall: this worker (the
    // SDK's default identity) polled before its slots filled; a worker that never polled, never.
    const polled = await lastWorkflowPoll(t.nativeConnection, 'default', taskQueue, `${worker.child!.pid}@${hostname()}`);
    expect(polled).toBeInstanceOf(Date);
    expect(Date.now() - polled!.getTime()).toBeLessThan(60_000);
    expect(await lastWorkflowPoll(t.nativeConnection, 'default', taskQueue, 'nobody@nowhere')).toBeNull();
  }, 90_000);
});
