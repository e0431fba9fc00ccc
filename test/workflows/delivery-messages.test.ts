// Signals and deferrals of the delivery workflow that every preset shares: markDead
// (endpoint disabled), deferrals from the send gate (SPEC §1 "Deferral": no attempt spent,
// schedule not advanced) and wake (a deferral ends early). End to end on the time-skipping
// server with the real worker and a real HTTP receiver.
import type { WorkflowHandle } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SendGate } from '../../src/activities/index.js';
import type { PresetName } from '../../src/policy/policy.js';
import type { DeliveryInput, DeliveryState } from '../../src/shared/delivery-types.js';
import { deliveryStateQuery, markDeadSignal, wakeSignal } from '../../src/shared/messages.js';
import { DeliveryHarness, attemptGapsMs } from '../helpers/delivery-harness.js';
import type { ReceivedRequest, Responder } from '../helpers/receiver.js';

const S = 1000;
const MIN = 60 * S;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const SLACK = 1000;
/**
 * Upper slack: a wait can only look longer than scheduled, by the real time the worker
 * takes to pick up the timer's workflow task (time does not skip meanwhile).
 */
const SLACK_LATE = 1500;

/** Answers the n-th request of each delivery (by Idempotency-Key) with statuses[n], the last repeating. */
function script(...statuses: number[]): Responder {
  const seen = new Map<string, number>();
  return (req, _i, res) => {
    const key = String(req.headers['idempotency-key'] ?? '');
    const n = seen.get(key) ?? 0;
    seen.set(key, n + 1);
    res.writeHead(statuses[Math.min(n, statuses.length - 1)]!).end();
  };
}

const attemptRows = (s: DeliveryState) => s.attempts.filter((a) => a.kind === 'attempt');
const deferralRows = (s: DeliveryState) => s.attempts.filter((a) => a.kind === 'deferral');

let ids = 0;
const newDeliveryId = (tag: string) => `dlv_msg_${tag}_${++ids}_${Math.random().toString(36).slice(2, 8)}`;

async function query(handle: WorkflowHandle): Promise<DeliveryState> {
  return handle.query(deliveryStateQuery);
}

/** Polls in real time (no time skipping) until the state satisfies `pred`. */
async function pollUntil(handle: WorkflowHandle, pred: (s: DeliveryState) => boolean, timeoutMs = 15_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const s = await query(handle);
    if (pred(s)) return s;
    if (Date.now() > until) throw new Error(`state never matched: ${JSON.stringify(s)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function expectWait(gapMs: number | undefined, baseSeconds: number, [lo, hi]: [number, number]) {
  expect(gapMs).toBeDefined();
  expect(gapMs!).toBeGreaterThanOrEqual(baseSeconds * S * lo - SLACK);
  expect(gapMs!).toBeLessThanOrEqual(baseSeconds * S * hi + SLACK_LATE);
}

describe('delivery messages: markDead, deferrals, wake', () => {
  let h: DeliveryHarness;
  /** Gate plans per delivery id; deliveries without a plan are never deferred. */
  const gatePlans = new Map<string, SendGate>();
  /** Every gate call, so a test can tell how often the workflow asked to send. */
  const gateCalls: string[] = [];

  /** Defers the first `n` sends of a delivery (optionally only sends of attempt `onAttempt`). */
  function deferFirst(deliveryId: string, n: number, retryInMs = HOUR, onAttempt?: number) {
    let deferred = 0;
    gatePlans.set(deliveryId, async (req) => {
      if (onAttempt !== undefined && req.attempt !== onAttempt) return undefined;
      if (deferred >= n) return undefined;
      deferred++;
      return { code: 'subscription_inactive', retryInMs };
    });
  }

  const requestsOf = (input: DeliveryInput): ReceivedRequest[] =>
    h.receiver.requests.filter((q) => q.headers['idempotency-key'] === input.deliveryId);

  beforeAll(async () => {
    h = await DeliveryHarness.create({
      gate: async (req) => {
        gateCalls.push(req.deliveryId);
        return gatePlans.get(req.deliveryId)?.(req);
      },
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  // ---- markDead ----------------------------------------------------------------------

  it.each(['standard', 'smengo', 'railhook', 'bird', 'dongtien'] as PresetName[])(
    'R-STATUS (%s): markDead(endpoint_disabled) during a retry wait ends the delivery `dead`; nothing is sent afterwards',
    async (preset) => {
      const { handle, input } = await h.start({ preset, respond: script(500) });
      await pollUntil(handle, (s) => s.attemptsInRound === 1 && s.status === 'pending');
      await handle.signal(markDeadSignal, { code: 'endpoint_disabled' });
      const dead = await pollUntil(handle, (s) => s.status === 'dead');
      expect(dead.lastCode).toBe('endpoint_disabled');
      expect(dead.nextAttemptAt).toBeUndefined();
      // Days pass (every preset's schedule would have sent again by now).
      await h.env.sleep(3 * DAY);
      const final = (await handle.result()) as DeliveryState;
      expect(final.status).toBe('dead');
      expect(final.lastCode).toBe('endpoint_disabled');
      expect(attemptRows(final)).toHaveLength(1);
      expect(requestsOf(input)).toHaveLength(1);
    },
  );

  it('R-STATUS: markDead while an attempt is in flight: that attempt is logged, then the delivery ends `dead`', async () => {
    const slow: Responder = (_req, _i, res) => {
      setTimeout(() => res.writeHead(500).end(), 1500);
    };
    const { handle, input } = await h.start({ preset: 'standard', respond: slow });
    await pollUntil(handle, () => requestsOf(input).length === 1);
    expect((await query(handle)).status).toBe('processing');
    await handle.signal(markDeadSignal, { code: 'endpoint_disabled' });
    await h.env.sleep(3 * DAY);
    const final = (await handle.result()) as DeliveryState;
    expect(final.status).toBe('dead');
    expect(final.lastCode).toBe('endpoint_disabled');
    expect(attemptRows(final)).toHaveLength(1);
    expect(attemptRows(final)[0]).toMatchObject({ httpStatus: 500, code: 'http_500' });
    expect(requestsOf(input)).toHaveLength(1);
  });

  it('R-STATUS: markDead during a deferral ends the delivery `dead` without a request', async () => {
    const deliveryId = newDeliveryId('dead_defer');
    deferFirst(deliveryId, 100);
    const { handle, input } = await h.start({ preset: 'standard', deliveryId, respond: script(200) });
    await pollUntil(handle, (s) => deferralRows(s).length === 1 && s.status === 'pending');
    await handle.signal(markDeadSignal, { code: 'endpoint_disabled' });
    const final = (await handle.result()) as DeliveryState;
    gatePlans.delete(deliveryId);
    expect(final.status).toBe('dead');
    expect(final.lastCode).toBe('endpoint_disabled');
    expect(attemptRows(final)).toHaveLength(0);
    expect(deferralRows(final)).toHaveLength(1);
    expect(requestsOf(input)).toHaveLength(0);
  });

  // ---- deferrals ---------------------------------------------------------------------

  it('R-RH-DEFER R-SMENGO-INACTIVE: a deferral spends no attempt and does not advance the schedule', async () => {
    const deliveryId = newDeliveryId('defer');
    // Attempt 1 fails; the next two sends (both for attempt 2) are deferred by 1 h.
    deferFirst(deliveryId, 2, HOUR, 2);
    const { handle, input } = await h.start({ preset: 'smengo', deliveryId, respond: script(500, 500, 200) });

    // Mid-deferral: a deferral row, still one attempt spent, next try an hour after it.
    await pollUntil(handle, (st) => st.attemptsInRound === 1 && st.status === 'pending');
    await h.env.sleep(MIN);
    const during = await query(handle);
    expect(deferralRows(during)).toHaveLength(1);
    expect(during.attemptsInRound).toBe(1);
    expect(during.status).toBe('pending');
    const d = deferralRows(during)[0]!;
    expect(d).toMatchObject({ code: 'subscription_inactive', attempt: 2 });
    expect(Math.abs(Date.parse(during.nextAttemptAt!) - Date.parse(d.finishedAt) - HOUR)).toBeLessThanOrEqual(
      SLACK,
    );

    const final = (await handle.result()) as DeliveryState;
    gatePlans.delete(deliveryId);
    expect(final.status).toBe('succeeded');
    expect(final.attempts.map((a) => [a.kind, a.attempt])).toEqual([
      ['attempt', 1],
      ['deferral', 2],
      ['deferral', 2],
      ['attempt', 2],
      ['attempt', 3],
    ]);
    const [d1, d2] = deferralRows(final);
    const between = Date.parse(d2!.startedAt) - Date.parse(d1!.finishedAt);
    expect(between).toBeGreaterThanOrEqual(HOUR - SLACK);
    expect(between).toBeLessThanOrEqual(HOUR + SLACK_LATE);
    // The wait after attempt 2 is the schedule's 2nd step (5 m), not a later one.
    // Attempt 1 -> 2: the 5 s step plus the two 1 h deferrals.
    const gaps = attemptGapsMs(final);
    expect(gaps[0]!).toBeGreaterThanOrEqual(2 * HOUR + 4500 - SLACK);
    expect(gaps[0]!).toBeLessThanOrEqual(2 * HOUR + 5500 + SLACK_LATE);
    expectWait(gaps[1], 300, [0.9, 1.1]);
    // Nothing was sent during deferrals; the attempt header counts attempts only.
    const header = input.policy.deliveryIdHeader.toLowerCase();
    expect(requestsOf(input).map((r) => r.headers[header])).toEqual(
      [1, 2, 3].map((n) => `${deliveryId}:${n}`),
    );
  });

  it('R-RH-DEFER: deferrals do not use up the attempt budget (maxAttempts 1: five deferrals, then one successful attempt)', async () => {
    const deliveryId = newDeliveryId('budget');
    deferFirst(deliveryId, 5, 10 * MIN);
    const { state, requests } = await h.deliver({
      preset: 'railhook',
      deliveryId,
      overrides: { maxAttempts: 1 },
      respond: script(200),
    });
    gatePlans.delete(deliveryId);
    expect(state.status).toBe('succeeded');
    expect(state.attempts.map((a) => a.kind)).toEqual([
      'deferral',
      'deferral',
      'deferral',
      'deferral',
      'deferral',
      'attempt',
    ]);
    expect(state.attemptsInRound).toBe(1);
    expect(requests).toHaveLength(1);
  });

  it('R-RH-LIFETIME: endless deferrals still end at the 96 h lifetime (exhausted, lifetime_exceeded, no attempt)', async () => {
    const deliveryId = newDeliveryId('forever');
    deferFirst(deliveryId, Number.MAX_SAFE_INTEGER, 7 * HOUR);
    const { handle, input } = await h.start({ preset: 'railhook', deliveryId, respond: script(200) });
    const deadline = Date.parse(input.createdAt) + 96 * HOUR;
    await h.env.sleep(deadline - MIN - (await h.env.currentTimeMs()));
    expect((await query(handle)).status).toBe('pending');
    await h.env.sleep(2 * MIN);
    const s = await query(handle);
    gatePlans.delete(deliveryId);
    expect(s.status).toBe('exhausted');
    expect(s.lastCode).toBe('lifetime_exceeded');
    expect(attemptRows(s)).toHaveLength(0);
    // 96 h / 7 h: 14 deferrals (at 0, 7, ..., 91 h); the last wait is cut at the deadline.
    expect(deferralRows(s)).toHaveLength(14);
    expect(requestsOf(input)).toHaveLength(0);
    await handle.terminate('test done');
  });

  // ---- wake --------------------------------------------------------------------------

  it('R-SMENGO-INACTIVE: wake ends a deferral early; the next attempt happens well before the hour', async () => {
    const deliveryId = newDeliveryId('wake');
    deferFirst(deliveryId, 1, HOUR);
    const { handle, input } = await h.start({ preset: 'smengo', deliveryId, respond: script(204) });
    const deferred = await pollUntil(handle, (s) => deferralRows(s).length === 1 && s.status === 'pending');
    expect(deferred.attemptsInRound).toBe(0);
    await h.env.sleep(5 * MIN);
    await handle.signal(wakeSignal);
    const done = await pollUntil(handle, (s) => s.status === 'succeeded');
    gatePlans.delete(deliveryId);
    const d = deferralRows(done)[0]!;
    const a = attemptRows(done)[0]!;
    const waited = Date.parse(a.startedAt) - Date.parse(d.finishedAt);
    expect(waited).toBeGreaterThanOrEqual(5 * MIN - SLACK);
    expect(waited).toBeLessThan(10 * MIN);
    expect(requestsOf(input)).toHaveLength(1);
    await handle.result();
  });

  it('R-DELAY: wake does not shorten a scheduled retry wait (only deferrals end early)', async () => {
    const { handle, input } = await h.start({ preset: 'standard', respond: script(500, 500, 204) });
    // Attempt 2 fails; the schedule then waits 5 m x [0.9, 1.1].
    await h.env.sleep(30 * S);
    const waiting = await pollUntil(handle, (s) => s.attemptsInRound === 2 && s.status === 'pending');
    expect(waiting.nextAttemptAt).toBeDefined();
    await handle.signal(wakeSignal);
    const final = (await handle.result()) as DeliveryState;
    expect(final.status).toBe('succeeded');
    expectWait(attemptGapsMs(final)[1], 300, [0.9, 1.1]);
    expect(requestsOf(input)).toHaveLength(3);
  });
});
