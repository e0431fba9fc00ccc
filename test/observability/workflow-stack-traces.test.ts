// Issue 16: `npm run worker` runs its workflow threads without the SDK's promise stack-trace
// hook (scripts/workflow-thread-preload.cjs): deliveries run the same, the `__stack_trace`
// query answers with no stack, and the worker says so at start. HERALD_WORKFLOW_STACK_TRACES=true
// keeps the SDK's hook, and the query shows where the delivery waits.
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { newTenant, jsonOf } from '../helpers/api.js';
import { Receiver } from '../helpers/receiver.js';
import { devServerClients, testConfig } from '../helpers/temporal.js';
import { ChildHerald } from './herald-processes.js';

type Delivery = { id: string; status: string; attempts: Array<{ kind: string }> };

describe('issue 16: the workflow thread without the SDK stack-trace hook', () => {
  const receiver = new Receiver((_r, _i, res) => res.writeHead(503).end('busy'));
  const workers: ChildHerald[] = [];
  let t: Awaited<ReturnType<typeof devServerClients>>;
  let base: string;

  beforeAll(async () => {
    [t, base] = await Promise.all([devServerClients(), receiver.start()]);
  });

  afterAll(async () => {
    for (const w of workers) await w.stop();
    await receiver.stop();
    await t?.close();
  });

  /**
   * A delivery on a `npm run worker` process: its first attempt refused, retried a second
   * later (a timer, and the regular activity) and refused again, now waiting an hour.
   */
  async function waitingDelivery(env: Record<string, string>) {
    const taskQueue = `st-${Math.random().toString(36).slice(2, 8)}`;
    const worker = new ChildHerald('src/worker.ts', { HERALD_TASK_QUEUE: taskQueue, ...env });
    workers.push(worker);
    await worker.start('worker polling');
    const tenant = await newTenant(
      createApp({ client: t.client, config: testConfig({ HERALD_TASK_QUEUE: taskQueue }) }),
    );
    const policy = { maxAttempts: 3, retryDelays: [1, 3600], timeoutSeconds: 5 };
    await jsonOf(
      tenant.call('POST', '/v1/endpoints', { url: `${base}/busy`, eventTypes: ['s.t'], policy }),
      201,
    );
    const { deliveries } = await jsonOf<{ deliveries: Array<{ id: string }> }>(
      tenant.call('POST', '/v1/events', { type: 's.t', payload: {} }),
      202,
    );
    const id = deliveries[0]!.id;
    const end = Date.now() + 30_000;
    while ((await jsonOf<Delivery>(tenant.call('GET', `/v1/deliveries/${id}`), 200)).attempts.length < 2) {
      if (Date.now() > end) throw new Error('not retried');
      await delay(200);
    }
    return { worker, handle: t.client.workflow.getHandle(id) };
  }

  it('npm run worker: the delivery runs and retries, the stack-trace query answers with none, and the start-up log says why', async () => {
    const { worker, handle } = await waitingDelivery({});
    expect(await handle.query<string>('__stack_trace')).toBe('');
    const notice = worker.output
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { message: string })
      .find((l) => l.message.startsWith('workflow stack traces are off'));
    expect(notice?.message).toContain('HERALD_WORKFLOW_STACK_TRACES=true');
  });

  it('HERALD_WORKFLOW_STACK_TRACES=true: the query shows where the delivery waits', async () => {
    const { handle } = await waitingDelivery({ HERALD_WORKFLOW_STACK_TRACES: 'true' });
    const stack = await handle.query<string>('__stack_trace');
    expect(stack).toMatch(/delivery/i);
  });
});
