import { setTimeout as delay } from 'node:timers/promises';
import { temporal } from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveryIdFor } from '../../src/shared/ids.js';
import { deliveryStateQuery } from '../../src/shared/messages.js';
import type { DeliveryState } from '../../src/shared/delivery-types.js';
import type { TenantSession } from '../helpers/api.js';
import type { LoggedRequest } from '../helpers/receiver-process.js';
import { TwoWorkers } from '../helpers/two-workers.js';

const { EventType } = temporal.api.enums.v1;

/**
 * No request of an event arrived before every earlier event's successful request had been
 * answered: no event overtook an unfinished earlier one. Returns the offending pairs.
 */
function overtakes(reqs: LoggedRequest[], order: string[]): string[] {
  const okDone = new Map<string, number>();
  for (const r of reqs) if (r.status === 200 && r.done !== undefined) okDone.set(r.webhookId, r.done);
  const bad: string[] = [];
  for (const r of reqs) {
    const k = order.indexOf(r.webhookId);
    for (let j = 0; j < k; j++) {
      const done = okDone.get(order[j]!);
      if (done === undefined || done > r.at) bad.push(`${r.webhookId} at ${r.at} before ${order[j]} done ${done}`);
    }
  }
  return bad;
}

const oks = (reqs: LoggedRequest[]) => reqs.filter((r) => r.status === 200).map((r) => r.webhookId);

// Issue 17 (R-RH-DEFER "ordered delivery waiting for the previous delivery"): `ordering: 'fifo'`
// on the dev server with two worker processes and receivers on loopback.
describe('issue 17: ordered (fifo) endpoints across two workers', () => {
  const run = Date.now();
  const id = (p: string, i: number) => `${p}_${i}_${run}`;
  const env = new TwoWorkers({
    '/fifo': { failFirst: { [id('a', 1)]: 3 } },
    '/dlq': { failFirst: { [id('c', 1)]: 2, [id('c', 2)]: 1 } },
    '/stuck': { failFirst: { [id('e', 1)]: 100 } },
  });
  const { receiver } = env;
  let w: Awaited<ReturnType<TwoWorkers['start']>>['w'];
  let tenant: TenantSession;
  let base: string;

  beforeAll(async () => {
    ({ w, base, tenant } = await env.start());
  }, 180_000);
  afterAll(() => env.stop(), 120_000);

  const create = async (body: Record<string, unknown>) => {
    const r = await tenant.call('POST', '/v1/endpoints', body);
    expect(r.status, await r.clone().text()).toBe(201);
    return ((await r.json()) as { endpoint: { endpointId: string; config: Record<string, unknown> } }).endpoint;
  };
  const publish = async (type: string, eventId: string, i: number) => {
    const r = await tenant.call('POST', '/v1/events', { id: eventId, type, payload: { i } });
    expect(r.status).toBe(202);
  };
  const seen = async (path: string) => (await receiver.requests()).filter((q) => q.path === path);
  const state = (deliveryId: string) => w.client.workflow.getHandle(deliveryId).query(deliveryStateQuery) as Promise<DeliveryState>;
  const historyOf = async (workflowId: string) =>
    ((await w.client.workflow.getHandle(workflowId).fetchHistory()).events ?? []).map((e) =>
      EventType[e.eventType ?? 0]!.replace(/^EVENT_TYPE_/, ''),
    );

  it('R-RH-DEFER: ordering is validated, shown in the view and cleared with null', async () => {
    const bad = await tenant.call('POST', '/v1/endpoints', { url: `${base}/bad`, ordering: 'lifo' });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toContain('application/problem+json');
    expect(((await bad.json()) as { code: string }).code).toBe('invalid_flow_option');
    const ep = await create({ url: `${base}/view`, eventTypes: ['view.x'], ordering: 'fifo' });
    expect(ep.config.ordering).toBe('fifo');
    const read = (await (await tenant.call('GET', `/v1/endpoints/${ep.endpointId}`)).json()) as { config: Record<string, unknown> };
    expect(read.config.ordering).toBe('fifo');
    const cleared = await tenant.call('PATCH', `/v1/endpoints/${ep.endpointId}`, { ordering: null });
    expect(cleared.status).toBe(200);
    expect(((await cleared.json()) as { config: Record<string, unknown> }).config.ordering).toBeUndefined();
    const again = await tenant.call('PATCH', `/v1/endpoints/${ep.endpointId}`, { ordering: 'fifo' });
    expect(((await again.json()) as { config: Record<string, unknown> }).config.ordering).toBe('fifo');
  }, 60_000);

  it(
    'R-RH-DEFER: 50 events to an ordered endpoint whose first event fails 3 times arrive in order, each once after ' +
      'its success; a second ordered endpoint is not held back; an endpoint without options costs nothing more',
    async () => {
      const EVENTS = 50;
      const a = await create({
        url: `${base}/fifo`,
        eventTypes: ['fifo.a'],
        ordering: 'fifo',
        policy: { maxAttempts: 6, retryDelays: [2, 2, 2, 2, 2] },
      });
      const b = await create({ url: `${base}/fifo2`, eventTypes: ['fifo.b'], ordering: 'fifo' });
      // The same events as b, no flow options: what it costs must not change.
      const plain = await create({ url: `${base}/plain`, eventTypes: ['fifo.b'] });
      const plainEndpointHistory = async () => (await historyOf(plain.endpointId)).length;
      // Its history once its first tasks are done (stable for half a second).
      let before = -1;
      for (let n = await plainEndpointHistory(); n !== before; n = await plainEndpointHistory()) {
        before = n;
        await delay(500);
      }

      const aOrder = Array.from({ length: EVENTS }, (_, k) => id('a', k + 1));
      const bOrder = Array.from({ length: 5 }, (_, k) => id('b', k + 1));
      // a1 first (it fails 3 times, 2 s apart), then b's five, then a2..a50, one after the other.
      await publish('fifo.a', aOrder[0]!, 1);
      for (const [k, e] of bOrder.entries()) await publish('fifo.b', e, k + 1);
      for (let k = 1; k < EVENTS; k++) await publish('fifo.a', aOrder[k]!, k + 1);

      await expect.poll(async () => new Set(oks(await seen('/fifo'))).size, { timeout: 120_000, interval: 500 }).toBe(EVENTS);
      const reqs = await seen('/fifo');
      // In order, each once after its success: a1 three failures then its success, the rest one request each.
      expect(oks(reqs)).toEqual(aOrder);
      expect(reqs.map((r) => r.webhookId)).toEqual([aOrder[0], aOrder[0], aOrder[0], ...aOrder]);
      expect(overtakes(reqs, aOrder)).toEqual([]);

      // The second ordered endpoint went on while a1 was still retrying.
      const bReqs = await seen('/fifo2');
      expect(oks(bReqs)).toEqual(bOrder);
      const a1Done = reqs.find((r) => r.webhookId === aOrder[0] && r.status === 200)!.done!;
      expect(Math.max(...bReqs.map((r) => r.done!))).toBeLessThan(a1Done);
      console.log(
        `fifo: a1 succeeded ${a1Done - reqs[0]!.at} ms after its first try; b's 5 done ${Math.max(...bReqs.map((r) => r.done!)) - reqs[0]!.at} ms after it; ` +
          `a50 done ${reqs[reqs.length - 1]!.done! - reqs[0]!.at} ms after it`,
      );

      // Waiting for the previous one is a deferral: no attempt spent, a row in the attempt log.
      const states = await Promise.all(aOrder.map((e) => state(deliveryIdFor(tenant.tenantId, e, a.endpointId))));
      expect(states.map((s) => s.status)).toEqual(aOrder.map(() => 'succeeded'));
      expect(states[0]!.attemptsInRound).toBe(4);
      expect(states.slice(1).filter((s) => s.attemptsInRound !== 1).map((s) => JSON.stringify(s.attempts))).toEqual([]);
      const waited = states.filter((s) => s.attempts.some((r) => r.kind === 'deferral' && r.code === 'waiting_for_previous'));
      console.log(`fifo: ${waited.length} of ${EVENTS} deliveries logged waiting_for_previous`);
      expect(waited.length).toBeGreaterThan(0);
      expect(states[1]!.attempts.some((r) => r.kind === 'deferral' && r.code === 'waiting_for_previous')).toBe(true);

      // Cost: the endpoint without options heard nothing of these deliveries (no enqueue, no
      // permit, no release), and its deliveries send no signal; the ordered one's do (its release).
      await expect.poll(async () => oks(await seen('/plain')).length, { timeout: 30_000 }).toBe(5);
      expect(await plainEndpointHistory()).toBe(before);
      for (const e of bOrder) {
        const plainDelivery = await historyOf(deliveryIdFor(tenant.tenantId, e, plain.endpointId));
        expect(plainDelivery).not.toContain('SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED');
        const ordered = await historyOf(deliveryIdFor(tenant.tenantId, e, b.endpointId));
        expect(ordered).toContain('SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED');
      }
    },
    300_000,
  );

  it('R-RH-DEFER: a dead-letter retry of an earlier delivery joins the queue at its tail', async () => {
    // Railhook: a dead letter there leaves the endpoint as it is (standard, as Smengo, disables it).
    const c = await create({
      url: `${base}/dlq`,
      eventTypes: ['fifo.c'],
      preset: 'railhook',
      ordering: 'fifo',
      // Railhook's jitter is [0.5, 1.5): c2's retry comes 5-15 s after its failure, time for
      // the dead-letter retry below to reach c1 before c2 and c3 are done.
      policy: { maxAttempts: 2, retryDelays: [10] },
    });
    const dlv = (k: number) => deliveryIdFor(tenant.tenantId, id('c', k), c.endpointId);
    // c1 fails twice: a dead letter, which releases the next.
    await publish('fifo.c', id('c', 1), 1);
    await expect.poll(async () => (await state(dlv(1))).status, { timeout: 60_000, interval: 500 }).toBe('exhausted');
    // c2 fails once and waits for its retry; c3 waits behind it.
    await publish('fifo.c', id('c', 2), 2);
    await publish('fifo.c', id('c', 3), 3);
    await expect.poll(async () => (await seen('/dlq')).filter((r) => r.webhookId === id('c', 2)).length, { timeout: 30_000 }).toBe(1);
    // Retried while c2 is in backoff: c1 does not hold back c2 and c3, accepted before the retry.
    const retried = await tenant.call('POST', `/v1/dead-letters/${dlv(1)}/retry`);
    expect(retried.status, await retried.clone().text()).toBe(202);
    await expect.poll(async () => oks(await seen('/dlq')).length, { timeout: 60_000, interval: 500 }).toBe(3);
    const reqs = await seen('/dlq');
    expect(reqs.map((r) => [r.webhookId, r.status])).toEqual([
      [id('c', 1), 500],
      [id('c', 1), 500],
      [id('c', 2), 500],
      [id('c', 2), 200],
      [id('c', 3), 200],
      [id('c', 1), 200],
    ]);
    const c1 = await state(dlv(1));
    expect(c1.status).toBe('succeeded');
    // After its two failed attempts (the retry): it waited for c2 and c3, then its one more attempt succeeded.
    const attemptAt = c1.attempts.flatMap((r, i) => (r.kind === 'attempt' ? [i] : []));
    console.log(`dlq retry: c1 rows ${JSON.stringify(c1.attempts.map((r) => [r.kind, r.code ?? r.httpStatus, r.round]))}`);
    expect(attemptAt.length).toBe(3);
    const betweenRetryAndSend = c1.attempts.slice(attemptAt[1]! + 1, attemptAt[2]);
    expect(betweenRetryAndSend.some((r) => r.kind === 'deferral' && r.code === 'waiting_for_previous')).toBe(true);
    const c3 = await state(dlv(3));
    expect(c3.attemptsInRound).toBe(1);
    expect(c3.attempts.some((r) => r.kind === 'deferral' && r.code === 'waiting_for_previous')).toBe(true);
  }, 180_000);

  it('R-RH-DEFER: a head terminated without releasing its place is looked up and dropped; the next one goes', async () => {
    const e = await create({
      url: `${base}/stuck`,
      eventTypes: ['fifo.e'],
      ordering: 'fifo',
      policy: { maxAttempts: 5, retryDelays: [600] },
    });
    const dlv = (k: number) => deliveryIdFor(tenant.tenantId, id('e', k), e.endpointId);
    await publish('fifo.e', id('e', 1), 1);
    await publish('fifo.e', id('e', 2), 2);
    await expect.poll(async () => (await seen('/stuck')).length, { timeout: 30_000 }).toBe(1);
    // e1 waits 10 minutes for its retry; terminated, it never tells its endpoint.
    await w.client.workflow.getHandle(dlv(1)).terminate('test: a head that never releases');
    const t0 = Date.now();
    await expect.poll(async () => oks(await seen('/stuck')), { timeout: 120_000, interval: 500 }).toEqual([id('e', 2)]);
    console.log(`fifo: a terminated head was dropped and the next one delivered ${Date.now() - t0} ms later`);
  }, 180_000);

  it("R-RH-DEFER: Dong Tien's drain of held deliveries of an ordered endpoint goes in order, one at a time", async () => {
    const d = await create({ url: `${base}/dt`, eventTypes: ['fifo.d'], preset: 'dongtien', ordering: 'fifo' });
    const paused = await tenant.call('POST', `/v1/endpoints/${d.endpointId}/pause`);
    expect(paused.status).toBe(200);
    const order = Array.from({ length: 8 }, (_, k) => id('d', k + 1));
    for (const [k, e] of order.entries()) await publish('fifo.d', e, k + 1);
    const dlv = (e: string) => deliveryIdFor(tenant.tenantId, e, d.endpointId);
    // Held: each has logged its deferral (the pause), nothing reached the receiver.
    await expect
      .poll(async () => (await Promise.all(order.map(async (e) => (await state(dlv(e))).attempts.length > 0))).every(Boolean), {
        timeout: 30_000,
        interval: 500,
      })
      .toBe(true);
    expect(await seen('/dt')).toEqual([]);
    const resumed = await tenant.call('POST', `/v1/endpoints/${d.endpointId}/resume`);
    expect(resumed.status).toBe(200);
    await expect.poll(async () => oks(await seen('/dt')).length, { timeout: 90_000, interval: 500 }).toBe(order.length);
    const reqs = await seen('/dt');
    expect(reqs.map((r) => r.webhookId)).toEqual(order);
    expect(overtakes(reqs, order)).toEqual([]);
    // The receiver answers before the delivery records its success: the last one may still be
    // recording when its request is seen.
    await expect
      .poll(
        async () => (await Promise.all(order.map((e) => state(dlv(e))))).map((s) => [s.status, s.attemptsInRound]),
        { timeout: 30_000, interval: 500 },
      )
      .toEqual(order.map(() => ['succeeded', 1]));
  }, 180_000);
});
