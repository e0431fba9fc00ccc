import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { entityTaskQueue } from '../../src/shared/task-queues.js';
import { newTenant, type TenantSession } from '../helpers/api.js';
import { startDevWorker } from '../helpers/dev-worker.js';
import { Receiver } from '../helpers/receiver.js';

// Endpoints and tenants run on a task queue of their own, with a worker cache of their own
// (src/shared/task-queues.ts). A delivery whose first attempt is out runs it inside its open
// workflow task, and a run with an open task cannot leave the cache. With the deliveries'
// cache full of such runs, an endpoint that shared it waited for a slot to answer anything:
// here the cache holds two workflows (the SDK's least), and a slow first attempt holds one.
describe('issue 16: endpoints do not wait behind deliveries for the worker cache', () => {
  let w: Awaited<ReturnType<typeof startDevWorker>>;
  let tenant: TenantSession;
  let release = () => {};
  const held = new Promise<void>((r) => (release = r));
  const receiver = new Receiver((req, _i, res) => {
    const answer = () => res.writeHead(200).end('ok');
    if (req.path === '/slow') void Promise.race([held, delay(20_000)]).then(answer);
    else answer();
  });
  let base: string;
  const endpointIds: Record<string, string> = {};

  beforeAll(async () => {
    [w, base] = await Promise.all([
      startDevWorker({ HERALD_WORKER_MAX_CACHED_WORKFLOWS: '2' }),
      receiver.start(),
    ]);
    tenant = await newTenant(createApp({ client: w.client, config: w.config }));
    for (const name of ['slow', 'quiet']) {
      const res = await tenant.call('POST', '/v1/endpoints', {
        url: `${base}/${name}`,
        eventTypes: [`${name}.event`],
      });
      expect(res.status).toBe(201);
      endpointIds[name] = ((await res.json()) as { endpoint: { endpointId: string } }).endpoint.endpointId;
    }
  }, 60_000);
  afterAll(async () => {
    release();
    await w?.stop();
    await receiver.stop();
  });

  it('R-LOG R-CRASH: an endpoint answers while a slow first attempt holds every slot of the deliveries’ cache, and that attempt is sent once and logged once', async () => {
    const run = Date.now();
    expect(
      (await tenant.call('POST', '/v1/events', { id: `slow_${run}`, type: 'slow.event', payload: {} }))
        .status,
    ).toBe(202);
    // The first attempt is out: its delivery's workflow task stays open until the receiver answers.
    await receiver.waitFor(1);

    const answered = await Promise.race([
      tenant.call('GET', `/v1/endpoints/${endpointIds.quiet}`),
      delay(15_000).then(() => 'no answer in 15 s' as const),
    ]);
    expect(answered).not.toBe('no answer in 15 s');
    expect((answered as Response).status).toBe(200);
    expect(((await (answered as Response).json()) as { endpointId: string }).endpointId).toBe(
      endpointIds.quiet,
    );
    // Answered while the receiver still holds the attempt.
    expect(receiver.requests).toHaveLength(1);

    release();
    let deliveryId = '';
    await expect
      .poll(
        async () => {
          const res = await tenant.call('GET', `/v1/deliveries?endpointId=${endpointIds.slow}`);
          const rows = ((await res.json()) as { data: Array<{ id: string; status: string }> }).data;
          deliveryId = rows[0]?.id ?? '';
          return rows.map((d) => d.status);
        },
        { timeout: 30_000, interval: 500 },
      )
      .toEqual(['succeeded']);
    // Before, the endpoint's read took the delivery's cache slot mid-attempt: the attempt's
    // task was lost, found by its timeout (lease_expired) and the event sent again.
    const delivery = (await (await tenant.call('GET', `/v1/deliveries/${deliveryId}`)).json()) as {
      attempts: Array<{ kind: string; httpStatus?: number }>;
    };
    expect(delivery.attempts.map((a) => [a.kind, a.httpStatus])).toEqual([['attempt', 200]]);
    expect(receiver.requests).toHaveLength(1);
  });

  it('endpoints and tenants run on the entity queue beside the deliveries’ queue', async () => {
    const description = await w.client.workflow.getHandle(endpointIds.quiet!).describe();
    expect(description.taskQueue).toBe(entityTaskQueue(w.config.HERALD_TASK_QUEUE));
    expect((await w.client.workflow.getHandle(tenant.tenantId).describe()).taskQueue).toBe(
      entityTaskQueue(w.config.HERALD_TASK_QUEUE),
    );
  });
});
