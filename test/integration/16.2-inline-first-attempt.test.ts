import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startDelivery } from '../../src/deliveries/start-delivery.js';
import { wakeSignal } from '../../src/shared/messages.js';
import { resolvePolicy } from '../../src/policy/policy.js';
import type { DeliveryInput, DeliveryState } from '../../src/shared/delivery-types.js';
import { generateSecret } from '../../src/signing/standard-webhooks.js';
import { startDevWorker } from '../helpers/dev-worker.js';
import { Receiver } from '../helpers/receiver.js';
import { dataConverterFor } from '../../src/temporal/data-converter.js';
import {
  TEST_CODEC_KEY,
  devServerClients,
  quietRuntime,
  testConfig,
  workflowBundle,
} from '../helpers/temporal.js';

/** A Herald worker as a real process (src/worker.ts), so it can die for real (kill -9). */
async function workerProcess(taskQueue: string): Promise<{ child: ChildProcess; exited: Promise<unknown> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/worker.ts'], {
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      HERALD_TASK_QUEUE: taskQueue,
      HERALD_ALLOW_ADDRESSES: '127.0.0.1/32',
      HERALD_ALLOW_HTTP_HOSTS: '127.0.0.1',
      HERALD_CODEC_KEYS: TEST_CODEC_KEY,
      HERALD_METRICS_PORT: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise((r) => child.once('exit', r));
  // The SDK's state change, as a field of Herald's JSON log line (issue 20).
  for (let i = 0; i < 480 && !out.includes('"state":"RUNNING"'); i++) await delay(250);
  if (!out.includes('"state":"RUNNING"')) throw new Error(`worker did not come up:\n${out}`);
  return { child, exited };
}

const { EventType } = temporal.api.enums.v1;
type Client = Awaited<ReturnType<typeof devServerClients>>['client'];

/** The history of one run, as event type names (EVENT_TYPE_ stripped). */
async function historyOf(client: Client, id: string): Promise<string[]> {
  const h = await client.workflow.getHandle(id).fetchHistory();
  return (h.events ?? []).map((e) => EventType[e.eventType ?? 0]!.replace(/^EVENT_TYPE_/, ''));
}

function input(base: string, path: string, deliveryId: string, timeoutSeconds = 5): DeliveryInput {
  const now = new Date().toISOString();
  return {
    deliveryId,
    tenantId: 't_inline',
    endpointId: `target:${path}`,
    event: { id: `msg_${deliveryId}`, type: 'inline.test', occurredAt: now, body: '{"inline":true}' },
    target: { url: `${base}${path}`, secrets: [generateSecret()] },
    policy: resolvePolicy('standard', { timeoutSeconds }),
    createdAt: now,
  };
}

// Issue 16 item 2: a delivery's first attempt goes out inside its first workflow task (a local
// activity), so one whose first attempt succeeds is started and completed by one workflow task.
describe('issue 16: the first attempt in the first workflow task', () => {
  const receiver = new Receiver((req, _i, res) => {
    if (req.path === '/fail') res.writeHead(503).end('busy');
    else res.writeHead(200).end('ok');
  });
  let base: string;
  let w: Awaited<ReturnType<typeof startDevWorker>>;

  beforeAll(async () => {
    [w, base] = await Promise.all([startDevWorker(), receiver.start()]);
  }, 60_000);
  afterAll(async () => {
    await w?.stop();
    await receiver.stop();
  });

  it('a delivery whose first attempt succeeds costs one workflow task, no timer, no upsert, and closes', async () => {
    const id = `dlv_inline_ok_${Date.now()}`;
    await startDelivery(w.client, w.config.HERALD_TASK_QUEUE, input(base, '/ok', id));
    const state = (await w.client.workflow.getHandle(id).result()) as DeliveryState;
    expect(state.status).toBe('succeeded');
    expect(state.attempts.map((a) => [a.kind, a.httpStatus])).toEqual([['attempt', 200]]);
    const events = await historyOf(w.client, id);
    console.log(`one successful delivery: ${events.length} history events: ${events.join(', ')}`);
    expect(events).toEqual([
      'WORKFLOW_EXECUTION_STARTED',
      'WORKFLOW_TASK_SCHEDULED',
      'WORKFLOW_TASK_STARTED',
      'WORKFLOW_TASK_COMPLETED',
      'MARKER_RECORDED',
      'WORKFLOW_EXECUTION_COMPLETED',
    ]);
    expect((await w.client.workflow.getHandle(id).describe()).status.name).toBe('COMPLETED');
  });

  it('a failed first attempt is retried by the activity, with its lease', async () => {
    const id = `dlv_inline_retry_${Date.now()}`;
    const start = input(base, '/fail', id);
    await startDelivery(w.client, w.config.HERALD_TASK_QUEUE, {
      ...start,
      policy: { ...start.policy, maxAttempts: 2, retryDelaysSeconds: [1] },
    });
    const state = (await w.client.workflow.getHandle(id).result()) as DeliveryState;
    expect(state.status).toBe('exhausted');
    expect(state.attempts.map((a) => [a.kind, a.attempt, a.httpStatus])).toEqual([
      ['attempt', 1, 503],
      ['attempt', 2, 503],
    ]);
    const events = await historyOf(w.client, id);
    expect(events.filter((e) => e === 'MARKER_RECORDED')).toHaveLength(1);
    expect(events.filter((e) => e === 'ACTIVITY_TASK_SCHEDULED')).toHaveLength(1);
  });
});

describe('issue 16: a worker that dies during the inline first attempt (R-CRASH)', () => {
  const receiver = new Receiver();
  let doomed: Awaited<ReturnType<typeof workerProcess>> | undefined;
  let second: Awaited<ReturnType<typeof startDevWorker>> | undefined;

  afterAll(async () => {
    if (doomed && doomed.child.exitCode === null && doomed.child.signalCode === null) {
      doomed.child.kill('SIGKILL');
      await doomed.exited;
    }
    await second?.stop();
    await receiver.stop();
  });

  it('R-CRASH: the workflow task timeout finds it; the next worker logs `lease_expired` and repeats the attempt as the activity, spending none', async () => {
    const taskQueue = `inline-crash-${Date.now()}`;
    const base = await receiver.start();
    const d = (doomed = await workerProcess(taskQueue));
    // The receiver holds the first request open and the worker dies mid-attempt.
    receiver.respondWith((_req, i, res) => {
      if (i === 0) d.child.kill('SIGKILL');
      else res.writeHead(200).end('ok');
    });
    const { client, close } = await devServerClients();
    try {
      const id = `dlv_inline_crash_${Date.now()}`;
      await startDelivery(client, taskQueue, input(base, '/crash', id, 2));
      await receiver.waitFor(1, 60_000);
      await d.exited;
      second = await startDevWorker({ HERALD_TASK_QUEUE: taskQueue });
      const state = (await client.workflow.getHandle(id).result()) as DeliveryState;
      expect(state.status).toBe('succeeded');
      expect(state.attempts.map((a) => [a.kind, a.attempt, a.code])).toEqual([
        ['lease_expired', 1, 'lease_expired'],
        ['attempt', 1, undefined],
      ]);
      expect(state.attemptsInRound).toBe(1);
      // The same attempt twice: same attempt number, same idempotency key.
      expect(receiver.requests.map((r) => r.headers['webhook-delivery-id'])).toEqual([`${id}:1`, `${id}:1`]);
      // The lost attempt's row spans the task timeout that found it (10 s for a 2 s attempt).
      const lease = state.attempts[0]!;
      expect(Date.parse(lease.finishedAt) - Date.parse(lease.startedAt)).toBeGreaterThanOrEqual(9_000);
      const events = await historyOf(client, id);
      console.log(`crash during the inline attempt: ${events.join(', ')}`);
      expect(events.slice(0, 4)).toEqual([
        'WORKFLOW_EXECUTION_STARTED',
        'WORKFLOW_TASK_SCHEDULED',
        'WORKFLOW_TASK_STARTED',
        'WORKFLOW_TASK_TIMED_OUT',
      ]);
      // The repeated first task still schedules the local activity (so a replay issues the same
      // commands whatever it reads), which sends nothing; the repeat is the regular activity.
      expect(events.filter((e) => e === 'MARKER_RECORDED')).toHaveLength(1);
      expect(events.filter((e) => e === 'ACTIVITY_TASK_SCHEDULED')).toHaveLength(1);
      // A replay from the start (a worker restart, the cache evicted) reads the whole history's
      // length in the first activation; it must issue the commands the live run did.
      quietRuntime();
      const history = await client.workflow.getHandle(id).fetchHistory();
      const replay = Worker.runReplayHistory(
        {
          workflowBundle: workflowBundle(),
          dataConverter: dataConverterFor(testConfig({ HERALD_CODEC_KEYS: TEST_CODEC_KEY })),
        },
        history,
        id,
      );
      await expect(replay).resolves.toBeUndefined();
    } finally {
      await close();
    }
  }, 120_000);
});

// Three signals that reach a delivery before its first workflow task starts make that task's
// history as long as a repeated first task's (started, scheduled, started, 3 more events).
describe('issue 16: signals before the first workflow task', () => {
  const receiver = new Receiver();
  let w: Awaited<ReturnType<typeof startDevWorker>> | undefined;

  afterAll(async () => {
    await w?.stop();
    await receiver.stop();
  });

  it('R-CRASH R-LOG: are not a repeated first task: the attempt goes out inline, once, with no `lease_expired` row', async () => {
    const taskQueue = `inline-signals-${Date.now()}`;
    const base = await receiver.start();
    const { client, close } = await devServerClients();
    try {
      const id = `dlv_inline_signals_${Date.now()}`;
      // No worker on this queue yet: the first task waits while the wakes arrive.
      await startDelivery(client, taskQueue, input(base, '/signals', id));
      for (let i = 0; i < 3; i++) await client.workflow.getHandle(id).signal(wakeSignal);
      w = await startDevWorker({ HERALD_TASK_QUEUE: taskQueue });
      const state = (await client.workflow.getHandle(id).result()) as DeliveryState;
      expect(state.attempts.map((a) => [a.kind, a.attempt, a.httpStatus])).toEqual([['attempt', 1, 200]]);
      expect(receiver.requests).toHaveLength(1);
      const events = await historyOf(client, id);
      expect(events.filter((e) => e === 'WORKFLOW_EXECUTION_SIGNALED')).toHaveLength(3);
      expect(events.filter((e) => e === 'WORKFLOW_TASK_COMPLETED')).toHaveLength(1);
      expect(events.filter((e) => e === 'ACTIVITY_TASK_SCHEDULED')).toHaveLength(0);
    } finally {
      await close();
    }
  }, 60_000);
});

// Issue 16: a first attempt refused an inline slot costs a second workflow task and an
// activity task. Behind a fast send of its own endpoint it waits for that slot instead.
describe('issue 16: first attempts beyond the endpoint\'s inline slots', () => {
  const receiver = new Receiver((_req, _i, res) => {
    setTimeout(() => res.writeHead(200).end('ok'), 50);
  });
  let base: string;
  let w: Awaited<ReturnType<typeof startDevWorker>>;

  beforeAll(async () => {
    // 4 inline slots, one per endpoint (HERALD_ENDPOINT_MAX_SHARE 0.25).
    [w, base] = await Promise.all([
      startDevWorker({ HERALD_WORKER_MAX_INLINE_ATTEMPTS: '4', HERALD_WORKER_INLINE_WAIT_MS: '2000' }),
      receiver.start(),
    ]);
  }, 60_000);
  afterAll(async () => {
    await w?.stop();
    await receiver.stop();
  });

  it('a burst to a fast endpoint goes out inline, one after another: one workflow task and no activity each', async () => {
    const ids = Array.from({ length: 6 }, (_, i) => `dlv_inline_burst_${Date.now()}_${i}`);
    await Promise.all(ids.map((id) => startDelivery(w.client, w.config.HERALD_TASK_QUEUE, input(base, '/fast', id))));
    for (const id of ids) {
      const state = (await w.client.workflow.getHandle(id).result()) as DeliveryState;
      expect(state.status).toBe('succeeded');
      const events = await historyOf(w.client, id);
      expect(events.filter((e) => e === 'WORKFLOW_TASK_COMPLETED'), id).toHaveLength(1);
      expect(events.filter((e) => e === 'ACTIVITY_TASK_SCHEDULED'), id).toHaveLength(0);
    }
  });
});
