import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pacedStep } from '../../src/flow/limiter.js';
import type { DeliveryState } from '../../src/shared/delivery-types.js';
import { deliveryIdFor } from '../../src/shared/ids.js';
import { deliveryStateQuery } from '../../src/shared/messages.js';
import type { TenantSession } from '../helpers/api.js';
import { busiestSecond, historyCounts, workerIdentities } from '../helpers/flow-measure.js';
import { TwoWorkers } from '../helpers/two-workers.js';

// Issue 17 (R-RH-DEFER "the endpoint's rate limit"): permits granted by the endpoint
// workflow, so the limit holds across the two workers sending. The receiver is its own
// process, so its clock is not that of the busy test process.
describe('issue 17: an endpoint rate limit holds across two workers', () => {
  const EVENTS = 100;
  const RATE = 5;
  const BURST = 1;
  const env = new TwoWorkers();
  const { receiver } = env;
  let w: Awaited<ReturnType<TwoWorkers['start']>>['w'];
  let tenant: TenantSession;
  let base: string;

  beforeAll(async () => {
    ({ w, base, tenant } = await env.start());
  }, 180_000);
  afterAll(() => env.stop(), 120_000);

  it('R-RH-DEFER: options are validated (problem+json, invalid_flow_option) and shown in the view', async () => {
    const bad = [
      { rateLimit: { perSecond: 0 } },
      { rateLimit: { perSecond: 5, burst: 0.5 } },
      { rateLimit: { perSecond: 1000 } },
      { maxInFlight: 0 },
      { maxInFlight: 2.5 },
      // Issue 17: 'fifo' is the one ordering (17.5-fifo.test.ts).
      { ordering: 'lifo' },
    ];
    for (const b of bad) {
      const r = await tenant.call('POST', '/v1/endpoints', { url: `${base}/bad`, ...b });
      expect(r.status, JSON.stringify(b)).toBe(400);
      expect(r.headers.get('content-type')).toContain('application/problem+json');
      expect(((await r.json()) as { code: string }).code).toBe('invalid_flow_option');
    }
    const created = await tenant.call('POST', '/v1/endpoints', {
      url: `${base}/view`,
      rateLimit: { perSecond: 2, burst: 3 },
      maxInFlight: 4,
    });
    expect(created.status).toBe(201);
    const { endpoint } = (await created.json()) as { endpoint: { endpointId: string; config: Record<string, unknown> } };
    expect(endpoint.config).toMatchObject({ rateLimit: { perSecond: 2, burst: 3 }, maxInFlight: 4 });
    const patched = await tenant.call('PATCH', `/v1/endpoints/${endpoint.endpointId}`, { rateLimit: null, maxInFlight: 1 });
    expect(patched.status).toBe(200);
    const view = (await patched.json()) as { config: Record<string, unknown> };
    expect(view.config.rateLimit).toBeUndefined();
    expect(view.config.maxInFlight).toBe(1);
    const read = (await (await tenant.call('GET', `/v1/endpoints/${endpoint.endpointId}`)).json()) as { config: Record<string, unknown> };
    expect(read.config).toMatchObject({ maxInFlight: 1 });
    const badPatch = await tenant.call('PATCH', `/v1/endpoints/${endpoint.endpointId}`, { rateLimit: { perSecond: -1 } });
    expect(badPatch.status).toBe(400);
    expect(((await badPatch.json()) as { code: string }).code).toBe('invalid_flow_option');
  }, 60_000);

  // "All 100 arrive within 100/5 s plus a small bound" is timed at the receiver, from the
  // first arrival: what a publish takes to reach its first send under the whole suite's load
  // on 2 cores (2-8 s, session 7) is the hot path's (issue 16, BENCHMARKS.md's latency), not
  // the limiter's, and is bounded separately here.
  it('R-RH-DEFER: 100 deliveries to a 5/s endpoint: no second over 5 + burst, all within 20 s + a small bound, no attempt spent', async () => {
    const run = Date.now();
    const mk = async (path: string, type: string, extra: object) => {
      const r = await tenant.call('POST', '/v1/endpoints', { url: `${base}${path}`, eventTypes: [type], ...extra });
      expect(r.status).toBe(201);
      return ((await r.json()) as { endpoint: { endpointId: string } }).endpoint.endpointId;
    };
    const limitedId = await mk('/limited', 'limited.event', { rateLimit: { perSecond: RATE, burst: BURST } });
    const plainId = await mk('/plain', 'plain.event', {});
    const publish = (type: string, i: number) =>
      tenant.call('POST', '/v1/events', { id: `${type}_${i}_${run}`, type, payload: { i } });
    const at = async (path: string) => (await receiver.requests()).filter((r) => r.path === path);

    // Both workers warm (their first sends load code, open sockets) before the measured run.
    for (let i = 0; i < 20; i += 10)
      await Promise.all(Array.from({ length: 10 }, async (_, k) => expect((await publish('plain.event', 100 + i + k)).status).toBe(202)));
    await expect.poll(async () => (await at('/plain')).length, { timeout: 60_000 }).toBe(20);

    const started = Date.now();
    for (let i = 0; i < EVENTS; i += 25)
      await Promise.all(Array.from({ length: 25 }, async (_, k) => expect((await publish('limited.event', i + k)).status).toBe(202)));
    // The last one waits ~20 s for its turn: read now, it is pending, its wait a deferral row
    // spending no attempt, and its next attempt at that turn (the run has not started yet).
    // Its turn is counted from the first publish: at least the 75 published before it were
    // given theirs first, ~15 s of 5/s; how long publishing took on a loaded machine is not
    // the limiter's.
    const lastId = deliveryIdFor(tenant.tenantId, `limited.event_${EVENTS - 1}_${run}`, limitedId);
    const waiting = await tenant.call('GET', `/v1/deliveries/${lastId}`);
    expect(waiting.status).toBe(200);
    const pending = (await waiting.json()) as DeliveryState;
    expect(pending).toMatchObject({ status: 'pending', attemptsInRound: 0, attempts: [{ kind: 'deferral', code: 'rate_limited', attempt: 1 }] });
    expect(Date.parse(pending.nextAttemptAt!) - started).toBeGreaterThan(10_000);
    expect(Date.parse(pending.nextAttemptAt!)).toBeGreaterThan(Date.now());
    await expect.poll(async () => (await at('/limited')).length, { timeout: 90_000, interval: 500 }).toBeGreaterThanOrEqual(EVENTS);
    const limited = await at('/limited');
    const ats = limited.map((r) => r.at);
    const first = Math.min(...ats);
    const spread = Math.max(...ats) - first;
    const busiest = busiestSecond(ats);
    console.log(
      `rate 5/s: ${ats.length} requests, busiest second ${busiest}, first ${first - started} ms after publishing began, last ${spread} ms after the first`,
    );
    if (busiest > RATE + BURST) {
      // What the workers saw: when each attempt started (right after its permit) against arrival.
      const rows = await Promise.all(
        limited.map(async (r) => {
          const st = await w.client.workflow.getHandle(r.deliveryId).query(deliveryStateQuery);
          const sent = st.attempts.find((a) => a.kind === 'attempt');
          return `${r.at - started} sent@${sent ? Date.parse(sent.startedAt) - started : '?'} rows ${st.attempts.length}`;
        }),
      );
      console.log(rows.join('\n'));
    }
    // (100 - burst) steps at the documented pace (5% under the configured rate, README), plus
    // a small bound: 20.8 s + 5 s.
    const bound = (EVENTS - BURST) * pacedStep({ perSecond: RATE, burst: BURST }) + 5_000;
    if (spread > bound) {
      // Where the time went: each hole at the receiver, and the delivery that ended it.
      const sorted = [...limited].sort((a, b) => a.at - b.at);
      const holes = sorted
        .map((r, i) => ({ r, gap: i === 0 ? 0 : r.at - sorted[i - 1]!.at }))
        .filter((h) => h.gap > 400);
      for (const h of holes) {
        const st = await w.client.workflow.getHandle(h.r.deliveryId).query(deliveryStateQuery);
        const rows = st.attempts.map((a) => `${a.kind}${a.code ? `:${a.code}` : ''}@${Date.parse(a.startedAt) - started}`);
        console.log(`hole ${h.gap} ms before ${h.r.at - started}: ${rows.join(' ')}`);
      }
    }
    expect(busiest).toBeLessThanOrEqual(RATE + BURST);
    expect(spread).toBeLessThanOrEqual(bound);
    expect(first - started).toBeLessThanOrEqual(15_000);

    const ids = [...new Set(limited.map((r) => r.deliveryId))];
    expect(ids).toHaveLength(EVENTS);
    const states = await Promise.all(ids.map((id) => w.client.workflow.getHandle(id).query(deliveryStateQuery)));
    expect(states.filter((s) => s.status !== 'succeeded').map((s) => s.deliveryId)).toEqual([]);
    // No attempt spent on a deferral: one attempt each, every deferral row `rate_limited`.
    expect(states.filter((s) => s.attemptsInRound !== 1 || s.attempts.filter((a) => a.kind === 'attempt').length !== 1)).toEqual([]);
    const deferrals = states.flatMap((s) => s.attempts.filter((a) => a.kind === 'deferral'));
    expect(new Set(deferrals.map((a) => a.code))).toEqual(new Set(['rate_limited']));
    // A reservation: a delivery is told its time once, then goes.
    const perDelivery = states.map((s) => s.attempts.filter((a) => a.kind === 'deferral').length);
    expect(Math.max(...perDelivery)).toBeLessThanOrEqual(2);

    // Cost: a limited delivery whose turn was reserved at publish costs what a plain one does,
    // one workflow task (its send inline in it), no timer, no activity. Without the reservation
    // 11 of 100 did. With it, alone here 90-100 do, but a send whose task runs over half a step
    // (105 ms) late misses its turn and asks again (a timer and the activity), and one past its
    // endpoint's share of the inline slots is the activity; on a slowed 2-core CI machine 71 did.
    // So the bound is half: far above what the code without the reservation does, and not a
    // reading of the machine's speed. The cost itself is bench (8)'s to measure.
    const counts = await Promise.all(ids.map((id) => historyCounts(w.client, id)));
    const sum = (k: 'workflowTasks' | 'timers' | 'activities') => counts.reduce((n, c) => n + c[k], 0);
    console.log(`limited deliveries: ${sum('workflowTasks')} workflow tasks, ${sum('timers')} timers, ${sum('activities')} activities for ${EVENTS}`);
    const oneTask = (c: (typeof counts)[number]) => c.workflowTasks === 1 && c.timers === 0 && c.activities === 0;
    // What the others did instead (their rows: a missed turn asks again; a send past its share goes as the activity).
    for (const [i, c] of counts.entries())
      if (!oneTask(c))
        console.log(
          `${ids[i]}: ${JSON.stringify(c)} ${states[i]!.attempts.map((a) => `${a.kind}${a.code ? `:${a.code}` : ''}@${Date.parse(a.startedAt) - started}`).join(' ')}`,
        );
    expect(counts.filter(oneTask).length).toBeGreaterThanOrEqual(0.5 * EVENTS);

    // Both workers sent.
    expect((await workerIdentities(w.client, ids.slice(0, 40))).size).toBeGreaterThanOrEqual(2);

    // Cost: the unlimited endpoint's workflow granted nothing (no update in its history); the
    // limited one's counts are what a limited send costs.
    expect((await historyCounts(w.client, plainId)).updates).toBe(0);
    const lim = await historyCounts(w.client, limitedId);
    console.log(
      `limited endpoint history: ${lim.events} events, ${lim.updates} permit updates for ${EVENTS} sends ` +
        `(${(lim.events / EVENTS).toFixed(1)} events a send); deliveries: ${deferrals.length} deferral rows`,
    );
  }, 240_000);
});
