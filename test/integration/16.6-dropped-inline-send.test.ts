import { setTimeout as delay } from 'node:timers/promises';
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { newTenant, type TenantSession } from '../helpers/api.js';
import { startDevWorker } from '../helpers/dev-worker.js';
import { Receiver } from '../helpers/receiver.js';

const { EventType } = temporal.api.enums.v1;

// A delivery's first attempt runs inside its first workflow task (a local activity). With the
// worker's workflow cache full, sdk-core makes room by evicting its least recently used run,
// even one whose attempt is out: the attempt's result is dropped, and its task or its local
// activity is found only by its timeout. Here the cache holds two workflows (the SDK's least),
// a receiver holds the first attempt, and a tenant reads another endpoint meanwhile (a query:
// that endpoint's workflow needs a slot).
describe('issue 16: a delivery the worker cache dropped mid inline attempt', () => {
  let w: Awaited<ReturnType<typeof startDevWorker>>;
  let tenant: TenantSession;
  let release = () => {};
  const held = new Promise<void>((r) => (release = r));
  const receiver = new Receiver((req, _i, res) => {
    const answer = () => res.writeHead(200).end('ok');
    // Answered within the endpoint's 3 s timeout, so the attempt is a 200 however it goes.
    if (req.path === '/slow') void Promise.race([held, delay(2_000)]).then(answer);
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
        // A 3 s attempt gives the delivery an 11 s workflow task timeout: the test may wait one.
        policy: { timeoutSeconds: 3 },
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

  it('R-CRASH R-LOG: the attempt it sent is logged once, with its outcome and time, and the receiver gets the event once', async () => {
    const run = Date.now();
    expect(
      (await tenant.call('POST', '/v1/events', { id: `slow_${run}`, type: 'slow.event', payload: {} })).status,
    ).toBe(202);
    await receiver.waitFor(1);
    const read = await tenant.call('GET', `/v1/endpoints/${endpointIds.quiet}`);
    expect(read.status).toBe(200);
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
        { timeout: 40_000, interval: 500 },
      )
      .toEqual(['succeeded']);
    const history = await w.client.workflow.getHandle(deliveryId).fetchHistory();
    const delivery = (await (await tenant.call('GET', `/v1/deliveries/${deliveryId}`)).json()) as {
      attempts: Array<{ kind: string; httpStatus?: number; startedAt: string }>;
    };
    // The cache did drop the run mid-attempt: its first workflow task was found by its
    // timeout, or its local activity was (the inline attempt's lease, spending none).
    const taskTimedOut = history.events?.some(
      (e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT,
    );
    expect(taskTimedOut || delivery.attempts.some((a) => a.kind === 'lease_expired')).toBe(true);
    // Before, the attempt that repeated it had only the lost lease to go on and sent the event
    // a second time. The one attempt logged is the request the receiver got, at the time it went out.
    const sent = delivery.attempts.filter((a) => a.kind === 'attempt');
    expect(sent.map((a) => [a.kind, a.httpStatus])).toEqual([['attempt', 200]]);
    const slowRequests = receiver.requests.filter((r) => r.path === '/slow');
    expect(slowRequests).toHaveLength(1);
    expect(Math.abs(Date.parse(sent[0]!.startedAt) - slowRequests[0]!.at)).toBeLessThan(1_000);
  }, 60_000);
});
