import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveryStateQuery } from '../../src/shared/messages.js';
import type { TenantSession } from '../helpers/api.js';
import type { LoggedRequest } from '../helpers/receiver-process.js';
import { TwoWorkers } from '../helpers/two-workers.js';

/** The most requests the receiver held open at once (from arrival to its answer). */
function mostOpen(reqs: LoggedRequest[]): number {
  const edges = reqs.flatMap((r) => [
    { t: r.at, d: 1 },
    { t: r.done ?? Infinity, d: -1 },
  ]);
  // An answer and an arrival at the same ms: the answer first.
  edges.sort((a, b) => a.t - b.t || a.d - b.d);
  let open = 0;
  let max = 0;
  for (const e of edges) max = Math.max(max, (open += e.d));
  return max;
}

// Issue 17 (R-RH-DEFER "busy concurrency slots"): maxInFlight holds across two worker
// processes and through a kill -9 of one of them: the dead worker's slot comes back when its
// lease runs out, and the waiters are woken, not polled.
describe('issue 17: maxInFlight holds across workers and a worker killed mid-run', () => {
  const EVENTS = 40;
  const env = new TwoWorkers({ '/two': { delayMs: 500 } });
  const { workers, receiver } = env;
  let w: Awaited<ReturnType<TwoWorkers['start']>>['w'];
  let tenant: TenantSession;
  let base: string;

  beforeAll(async () => {
    ({ w, base, tenant } = await env.start());
  }, 180_000);
  afterAll(() => env.stop(), 120_000);

  it('R-RH-DEFER: maxInFlight 2, receiver 500 ms, 40 deliveries, one worker kill -9d: never more than 2 open, all delivered', async () => {
    const run = Date.now();
    const r = await tenant.call('POST', '/v1/endpoints', {
      url: `${base}/two`,
      eventTypes: ['two.event'],
      maxInFlight: 2,
      // A short request timeout, so the dead worker's lease (timeout + 5 s) runs out soon.
      policy: { timeoutSeconds: 2 },
    });
    expect(r.status).toBe(201);
    const publish = (i: number) => tenant.call('POST', '/v1/events', { id: `two_${i}_${run}`, type: 'two.event', payload: { i } });
    for (let i = 0; i < EVENTS; i += 20)
      await Promise.all(Array.from({ length: 20 }, async (_, k) => expect((await publish(i + k)).status).toBe(202)));
    const seen = async () => (await receiver.requests()).filter((q) => q.path === '/two');
    await expect.poll(async () => (await seen()).length, { timeout: 60_000, interval: 200 }).toBeGreaterThanOrEqual(8);
    await workers[0]!.kill();

    const ids = () => seen().then((s) => new Set(s.filter((q) => q.status === 200 && q.done).map((q) => q.deliveryId)));
    await expect.poll(async () => (await ids()).size, { timeout: 150_000, interval: 1000 }).toBe(EVENTS);
    const reqs = await seen();
    const most = mostOpen(reqs);
    console.log(`maxInFlight 2: ${reqs.length} requests, at most ${most} open at once`);
    expect(most).toBeLessThanOrEqual(2);
    expect(most).toBe(2);

    const read = async () => Promise.all([...(await ids())].map((id) => w.client.workflow.getHandle(id).query(deliveryStateQuery)));
    await expect.poll(async () => (await read()).filter((s) => s.status !== 'succeeded').length, { timeout: 30_000 }).toBe(0);
    const states = await read();
    // A deferral spends no attempt: one attempt each (a lost one repeats unspent, `lease_expired`).
    expect(states.filter((s) => s.attemptsInRound !== 1).map((s) => JSON.stringify(s.attempts))).toEqual([]);
    const codes = new Set(states.flatMap((s) => s.attempts.filter((a) => a.kind === 'deferral').map((a) => a.code)));
    expect(codes.has('concurrency_limited')).toBe(true);
    // Woken, not polled: waiters are told to look again only when the oldest lease would run out,
    // so a delivery's deferral rows stay few.
    const rows = states.map((s) => s.attempts.filter((a) => a.kind === 'deferral').length);
    console.log(`deferral rows: total ${rows.reduce((a, b) => a + b, 0)}, most for one delivery ${Math.max(...rows)}`);
  }, 300_000);
});
