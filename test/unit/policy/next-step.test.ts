// Issue 15 step 6: the delivery round as a pure reducer (policy/next-step.ts). Each test
// names the SPEC §3 row (or §2 rule, or issue item) it checks, and drives the reducer as
// the workflow does: `ready` -> send -> `sent` (-> `reported`) -> wait -> `ready` ... No
// server; the real presets and the real health rules (health/) are used.
// The module is new in this change (nothing on the previous main to fail); the behavioural
// proof against the old workflow is test/workflows/delivery-replay.test.ts and the suites.
import { describe, expect, it } from 'vitest';
import { initialHealth } from '../../../src/health/common.js';
import { lifetimeEndCounts } from '../../../src/health/lifetime-end.js';
import { shouldReport } from '../../../src/health/reporting.js';
import type { HealthState } from '../../../src/health/types.js';
import type { AttemptResult } from '../../../src/policy/attempt-result.js';
import { readSendResult } from '../../../src/policy/attempt-result.js';
import {
  DEFERRAL_LIMIT_MS,
  DEFERRAL_ROWS_KEPT,
  DELIVERY_ROLLOVER_EVENTS,
  WORKER_ERROR_LIMIT,
  closeRound,
  deadOnArrival,
  deferredAtPublish,
  firstRound,
  nextStep,
  reopen,
  type Decision,
  type NextStep,
  type RoundContext,
  type RoundInput,
  type RoundState,
} from '../../../src/policy/next-step.js';
import { resolvePolicy, type DeliveryPolicy, type PolicyOverrides, type PresetName } from '../../../src/policy/policy.js';
import { openAfterRoundMs } from '../../../src/policy/replay-window.js';

const S = 1000;
const MIN = 60 * S;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const T0 = Date.UTC(2026, 0, 1);

function ctxFor(
  preset: PresetName,
  o: { overrides?: PolicyOverrides; bound?: boolean; random?: number; policy?: Partial<DeliveryPolicy> } = {},
): RoundContext {
  const policy = { ...resolvePolicy(preset, o.overrides), ...o.policy };
  return {
    policy,
    deliveryId: 'dlv_1',
    bound: o.bound ?? false,
    random: () => o.random ?? 0.5,
    health: { shouldReport: (seen, r) => shouldReport(preset, seen, r), lifetimeEndCounts },
  };
}

const ok = (status = 200): Extract<AttemptResult, { kind: 'delivered' }> => ({ kind: 'delivered', httpStatus: status, latencyMs: 12 });
const fail = (status: number, retryAfter?: string): Extract<AttemptResult, { kind: 'rejected' }> => ({
  kind: 'rejected',
  httpStatus: status,
  code: status === 410 ? 'gone' : status >= 300 && status < 400 ? 'redirect_not_allowed' : `http_${status}`,
  retryAfter,
  latencyMs: 12,
});

/** Drives the reducer the way the workflow does, with a clock the test moves. */
class Round {
  now = T0;
  state: RoundState;
  steps: NextStep[] = [];
  history = 10;
  constructor(readonly ctx: RoundContext) {
    this.state = firstRound(ctx.policy, { deliveryId: 'dlv_1', eventId: 'msg_1', endpointId: 'ep_1' }, T0);
  }
  feed(input: RoundInput): NextStep {
    const d: Decision = nextStep(this.ctx, this.state, input);
    this.state = d.state;
    this.steps.push(d.step);
    return d.step;
  }
  ready(): NextStep {
    return this.feed({ kind: 'ready', now: this.now, history: { events: this.history, suggested: false } });
  }
  /** One attempt: ready -> send, the result after `latencyMs`, then any reports. */
  attempt(result: AttemptResult, latencyMs = 100): NextStep {
    const send = this.ready();
    expect(send.kind, JSON.stringify(send)).toBe('send');
    this.now += latencyMs;
    let step = this.feed({ kind: 'sent', now: this.now, result });
    while (step.kind === 'report') step = this.feed({ kind: 'reported', now: this.now });
    return step;
  }
  /** Waits as a `wait` step says, to its end. */
  sleepThrough(step: NextStep) {
    if (step.kind === 'wait') this.now = step.untilMs;
    if (step.kind === 'sleep') this.now += step.ms;
  }
  get d() {
    return this.state.delivery;
  }
}

describe('15.6 policy/next-step: SPEC §3 "attempts" and "delays after attempt 1"', () => {
  it('R-STATUS: a 2xx on the first attempt ends `succeeded` with one attempt row, nothing scheduled', () => {
    const r = new Round(ctxFor('standard'));
    expect(r.ready()).toEqual({ kind: 'send', attempt: 1, createdAt: new Date(T0).toISOString() });
    expect(r.d.status).toBe('processing');
    r.now += 50;
    expect(r.feed({ kind: 'sent', now: r.now, result: ok(204) })).toEqual({ kind: 'end' });
    expect(r.d.status).toBe('succeeded');
    expect(r.d.attemptsInRound).toBe(1);
    expect(r.d.nextAttemptAt).toBeUndefined();
    expect(r.d.attempts).toEqual([
      { kind: 'attempt', attempt: 1, round: 1, startedAt: new Date(T0).toISOString(), finishedAt: new Date(T0 + 50).toISOString(), latencyMs: 12, httpStatus: 204, code: undefined, responseBody: undefined, responseBodyEncoding: undefined, sent: undefined },
    ]);
  });

  it('SPEC §3 "delays after attempt 1" (standard: 5s, 5m, 30m, 2h, 5h, 10h, 10h) and "attempts" (8): a receiver that always fails is exhausted after 8, the waits measured from each failure (R-DELAY)', () => {
    const r = new Round(ctxFor('standard', { random: 0.5 })); // jitter factor 1.0 at the middle of [0.9, 1.1)
    const waits: number[] = [];
    for (let i = 1; i <= 7; i++) {
      const step = r.attempt(fail(500), 3 * S);
      expect(step.kind).toBe('wait');
      if (step.kind !== 'wait') return;
      expect(step.onWake).toBe('keep_time');
      expect(r.d.status).toBe('pending');
      expect(r.d.nextAttemptAt).toBe(new Date(r.now + step.ms).toISOString());
      waits.push(step.ms);
      r.sleepThrough(step);
    }
    expect(waits).toEqual([5 * S, 5 * MIN, 30 * MIN, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR]);
    expect(r.attempt(fail(500))).toEqual({ kind: 'end' });
    expect(r.d).toMatchObject({ status: 'exhausted', lastCode: 'http_500', attemptsInRound: 8 });
  });

  it('SPEC §3 "delays after attempt 1" (railhook 1m, 5m, 15m, 1h, 6h, 24h; 7 attempts) and "jitter factor" 0.5-1.5', () => {
    const low = new Round(ctxFor('railhook', { random: 0 }));
    const lowStep = low.attempt(fail(503));
    expect(lowStep).toMatchObject({ kind: 'wait', ms: 30 * S });
    const high = new Round(ctxFor('railhook', { random: 0.999999 }));
    const highStep = high.attempt(fail(503));
    expect(highStep.kind === 'wait' && highStep.ms).toBeGreaterThan(89 * S);
    expect(high.ctx.policy.maxAttempts).toBe(7);
  });

  it('R-JITTER: a random number is drawn only when a retry is scheduled (the workflow\'s seeded sequence stays the one it always was)', () => {
    let draws = 0;
    const ctx = { ...ctxFor('standard'), random: () => (draws++, 0.5) };
    const r = new Round(ctx);
    r.attempt(ok());
    expect(draws).toBe(0);
    const q = new Round(ctx);
    q.sleepThrough(q.attempt(fail(500)));
    expect(draws).toBe(1);
  });
});

describe('issue 17 policy/next-step: a turn reserved at publish (R-RH-DEFER)', () => {
  it('R-RH-DEFER: the wait is one `rate_limited` deferral row spending no attempt; the run then sends attempt 1 and a 2xx ends it', () => {
    const r = new Round(ctxFor('standard'));
    r.state = deferredAtPublish(r.state, { reservedAt: T0 + 5, sendAt: T0 + 20 * S }, 'rate_limited');
    expect(r.d).toMatchObject({ status: 'pending', attemptsInRound: 0, nextAttemptAt: new Date(T0 + 20 * S).toISOString() });
    expect(r.d.attempts).toEqual([
      { kind: 'deferral', attempt: 1, round: 1, startedAt: new Date(T0 + 5).toISOString(), finishedAt: new Date(T0 + 5).toISOString(), latencyMs: 0, code: 'rate_limited' },
    ]);
    r.now = T0 + 19 * S;
    expect(r.ready()).toEqual({ kind: 'send', attempt: 1, createdAt: new Date(T0).toISOString() });
    r.now += 1_050;
    expect(r.feed({ kind: 'sent', now: r.now, result: ok() })).toEqual({ kind: 'end' });
    expect(r.d).toMatchObject({ status: 'succeeded', attemptsInRound: 1 });
    expect(r.d.attempts.map((a) => a.kind)).toEqual(['deferral', 'attempt']);
    expect(r.state.deferStreak).toBeUndefined();
  });
});

describe('15.6 policy/next-step: SPEC §3 "retried responses" / "non-retried response"', () => {
  it('SPEC §3 "non-retried response" standard: 410 ends `exhausted` (gone), no retry', () => {
    const r = new Round(ctxFor('standard'));
    expect(r.attempt(fail(410))).toEqual({ kind: 'end' });
    expect(r.d).toMatchObject({ status: 'exhausted', lastCode: 'gone', attemptsInRound: 1 });
  });

  it('SPEC §3 "non-retried response" smengo: 410 ends the delivery `dead` (gone) and the bound endpoint hears `gone`', () => {
    const r = new Round(ctxFor('smengo', { bound: true }));
    r.ready();
    r.now += 10;
    const step = r.feed({ kind: 'sent', now: r.now, result: { ...fail(410), health: initialHealth() } });
    expect(step).toEqual({ kind: 'report', reports: [{ kind: 'gone', at: r.now, deliveryId: 'dlv_1' }] });
    // Nothing is final before the report is out: the index still says processing.
    expect(r.d.status).toBe('processing');
    expect(r.feed({ kind: 'reported', now: r.now + 5 })).toEqual({ kind: 'end' });
    expect(r.d).toMatchObject({ status: 'dead', lastCode: 'gone' });
  });

  it('SPEC §3 "non-retried response" railhook: a status off the retryable list (400) is dead-lettered after that attempt; its breaker hears the failure (an exhaustion is no Railhook health event)', () => {
    const r = new Round(ctxFor('railhook', { bound: true }));
    r.ready();
    const step = r.feed({ kind: 'sent', now: r.now, result: { ...fail(400), health: initialHealth() } });
    expect(step.kind === 'report' && step.reports.map((x) => x.kind)).toEqual(['attempt_failed']);
    expect(r.d.status).toBe('processing');
    expect(r.feed({ kind: 'reported', now: r.now })).toEqual({ kind: 'end' });
    expect(r.d).toMatchObject({ status: 'exhausted', lastCode: 'http_400' });
  });

  it('SPEC §3 "attempts" R-DT-HEALTH: the last failed attempt is reported before the exhaustion, in one report step, and the delivery ends only after both', () => {
    const r = new Round(ctxFor('dongtien', { bound: true, policy: { maxAttempts: 1 } }));
    r.ready();
    const seen: HealthState = { ...initialHealth(), consecutiveFailures: 4 };
    const step = r.feed({ kind: 'sent', now: r.now, result: { ...fail(500), health: seen } });
    expect(step.kind === 'report' && step.reports.map((x) => x.kind)).toEqual(
      shouldReport('dongtien', seen, { kind: 'delivery_exhausted', at: r.now, deliveryId: 'dlv_1' })
        ? ['attempt_failed', 'delivery_exhausted']
        : ['attempt_failed'],
    );
    expect(r.feed({ kind: 'reported', now: r.now })).toEqual({ kind: 'end' });
    expect(r.d).toMatchObject({ status: 'exhausted', lastCode: 'http_500' });
  });

  it('SPEC §3 "endpoint health" standard (as smengo): a delivery that exhausts its attempts is reported (it disables the endpoint)', () => {
    const r = new Round(ctxFor('standard', { bound: true, policy: { maxAttempts: 1 } }));
    r.ready();
    const step = r.feed({ kind: 'sent', now: r.now, result: { ...fail(500), health: initialHealth() } });
    expect(step.kind === 'report' && step.reports.at(-1)).toEqual({ kind: 'delivery_exhausted', at: r.now, deliveryId: 'dlv_1' });
  });

  it('SPEC §3 "retried responses" bird: every non-2xx, 410 included, is retried', () => {
    const r = new Round(ctxFor('bird'));
    expect(r.attempt(fail(410)).kind).toBe('wait');
    expect(r.d).toMatchObject({ status: 'pending', lastCode: 'gone' });
  });

  it('R-NOREDIR SPEC §3 "retried responses" standard: a 3xx is a failed attempt (redirect_not_allowed), retried', () => {
    const r = new Round(ctxFor('standard'));
    expect(r.attempt(fail(302)).kind).toBe('wait');
    expect(r.d.lastCode).toBe('redirect_not_allowed');
  });

  it('SPEC §3 "network error, timeout, DNS failure": retried under every preset', () => {
    for (const preset of ['standard', 'smengo', 'railhook', 'bird', 'dongtien'] as const) {
      for (const code of ['timeout', 'network_ECONNREFUSED', 'dns_failed']) {
        const r = new Round(ctxFor(preset));
        const result: AttemptResult =
          code === 'dns_failed' ? { kind: 'not_sent', code, latencyMs: 0 } : { kind: 'transport_error', code, latencyMs: 0 };
        expect(r.attempt(result).kind, `${preset} ${code}`).toBe('wait');
        expect(r.d.lastCode).toBe(code);
      }
    }
  });

  it('SPEC §3 "private address": railhook ends `failed` with a refused row and no attempt spent; standard spends the attempt and retries', () => {
    const rh = new Round(ctxFor('railhook'));
    expect(rh.attempt({ kind: 'not_sent', code: 'private_address', latencyMs: 0 })).toEqual({ kind: 'end' });
    expect(rh.d).toMatchObject({ status: 'failed', lastCode: 'private_address', attemptsInRound: 0 });
    expect(rh.d.attempts.map((a) => a.kind)).toEqual(['refused']);
    const st = new Round(ctxFor('standard'));
    expect(st.attempt({ kind: 'not_sent', code: 'private_address', latencyMs: 0 }).kind).toBe('wait');
    expect(st.d).toMatchObject({ status: 'pending', attemptsInRound: 1 });
  });
});

describe('15.6 policy/next-step: SPEC §3 "Retry-After honoured on" and "Retry-After rule" (R-DELAY)', () => {
  it('standard: 429 with Retry-After 120 waits max(5 s step, 120 s) = 120 s', () => {
    const r = new Round(ctxFor('standard'));
    expect(r.attempt(fail(429, '120'))).toMatchObject({ kind: 'wait', ms: 120 * S });
  });

  it('standard: the cap (1 h) limits the header, never the schedule', () => {
    const r = new Round(ctxFor('standard'));
    expect(r.attempt(fail(503, String(6 * 3600)))).toMatchObject({ kind: 'wait', ms: HOUR });
  });

  it('standard: a Retry-After on a 500 is not honoured (429, 503 only)', () => {
    const r = new Round(ctxFor('standard'));
    expect(r.attempt(fail(500, '600'))).toMatchObject({ kind: 'wait', ms: 5 * S });
  });

  it('dongtien: `replace` on any failed response: Retry-After 2 on a 500 waits 2 s, not the 5 s step; at least 1 s', () => {
    const r = new Round(ctxFor('dongtien'));
    expect(r.attempt(fail(500, '2'))).toMatchObject({ kind: 'wait', ms: 2 * S });
    const z = new Round(ctxFor('dongtien'));
    expect(z.attempt(fail(500, '0'))).toMatchObject({ kind: 'wait', ms: S });
  });

  it('bird: after a 429 or a timeout the next wait is at least 60 s', () => {
    const r = new Round(ctxFor('bird'));
    expect(r.attempt(fail(429))).toMatchObject({ kind: 'wait', ms: 60 * S });
    const t = new Round(ctxFor('bird'));
    expect(t.attempt({ kind: 'transport_error', code: 'timeout', latencyMs: 15 * S })).toMatchObject({ kind: 'wait', ms: 60 * S });
  });

  it('railhook: WEBHOOK_RETRY_AFTER_MAX_SECONDS=0 ignores the header', () => {
    const ctx = ctxFor('railhook', { random: 0.5 });
    const r = new Round({ ...ctx, policy: { ...ctx.policy, retryAfter: { ...ctx.policy.retryAfter, ignore: true } } });
    expect(r.attempt(fail(429, '3600'))).toMatchObject({ kind: 'wait', ms: MIN });
  });
});

describe('15.6 policy/next-step: SPEC §3 "max lifetime of a delivery"', () => {
  it('R-RH-LIFETIME standard 96 h: a wait never outlasts the lifetime, and at the deadline the delivery ends `exhausted` (lifetime_exceeded) without another send', () => {
    const r = new Round(ctxFor('standard', { policy: { maxAttempts: 20, retryDelaysSeconds: [40 * 3600] } }));
    r.sleepThrough(r.attempt(fail(500)));
    const second = r.attempt(fail(500));
    // 40 h from the second failure would pass 96 h after creation: cut to the deadline.
    expect(second.kind === 'wait' && r.now + second.ms).toBeLessThanOrEqual(T0 + 96 * HOUR);
    r.sleepThrough(second);
    r.sleepThrough(r.attempt(fail(500)));
    expect(r.ready()).toEqual({ kind: 'end' });
    expect(r.d).toMatchObject({ status: 'exhausted', lastCode: 'lifetime_exceeded' });
  });

  it('issue 14.5: a lifetime run out by failures is reported as exhausted; one spent held back is reported only by runs recorded before the 14.5 patch', () => {
    const ctx = ctxFor('standard', { bound: true, policy: { maxAttempts: 20, retryDelaysSeconds: [40 * 3600] } });
    const failing = new Round(ctx);
    for (let i = 0; i < 3; i++) failing.sleepThrough(failing.attempt({ ...fail(500), health: initialHealth() }));
    const end = failing.ready();
    expect(end).toEqual({ kind: 'report', reports: [{ kind: 'delivery_exhausted', at: failing.now, deliveryId: 'dlv_1' }] });

    const held = new Round(ctx);
    let heldEnd = held.ready();
    while (heldEnd.kind === 'send') {
      const step = held.feed({ kind: 'sent', now: held.now, result: { kind: 'deferred', code: 'endpoint_paused', retryInMs: HOUR, latencyMs: 0, health: initialHealth() } });
      held.sleepThrough(step);
      heldEnd = held.ready();
    }
    // Only held back: whether to report is the patch's call (runs recorded before 14.5 did).
    expect(heldEnd).toEqual({ kind: 'report', reports: [{ kind: 'delivery_exhausted', at: held.now, deliveryId: 'dlv_1' }], unlessPatched: 'lifetime_end' });
    expect(held.now).toBe(T0 + 96 * HOUR);
    expect(held.feed({ kind: 'reported', now: held.now })).toEqual({ kind: 'end' });
    expect(held.d).toMatchObject({ status: 'exhausted', lastCode: 'lifetime_exceeded', attemptsInRound: 0 });
  });

  it('SPEC §3 "max lifetime": smengo, bird and dongtien have none: a deferral 200 days in still waits (until the 90-day deferral limit, which runs from the streak)', () => {
    const r = new Round(ctxFor('smengo'));
    r.sleepThrough(r.attempt(fail(500)));
    r.now = T0 + 200 * DAY;
    expect(r.attempt(fail(500)).kind).toBe('wait');
  });
});

describe('15.6 policy/next-step: deferrals (SPEC §1, R-RH-DEFER, R-SMENGO-PAUSE, issue 14.2)', () => {
  it('R-RH-DEFER: a deferral spends no attempt and does not advance the schedule; a wake rechecks at once', () => {
    const r = new Round(ctxFor('standard'));
    const step = r.attempt({ kind: 'deferred', code: 'endpoint_paused', retryInMs: MIN, latencyMs: 0 });
    expect(step).toMatchObject({ kind: 'wait', ms: MIN, onWake: 'recheck' });
    expect(r.d).toMatchObject({ status: 'pending', attemptsInRound: 0 });
    r.sleepThrough(step);
    r.sleepThrough(r.attempt(fail(500)));
    // The first failure still gets the first step (5 s), deferrals notwithstanding.
    expect(r.steps.at(-1)).toMatchObject({ kind: 'wait', ms: 5 * S });
  });

  it(`issue 14.2: past ${DEFERRAL_ROWS_KEPT} identical short deferrals the last row widens (repeats) instead of growing the log`, () => {
    const r = new Round(ctxFor('smengo'));
    for (let i = 0; i < DEFERRAL_ROWS_KEPT + 5; i++)
      r.sleepThrough(r.attempt({ kind: 'deferred', code: 'endpoint_paused', retryInMs: MIN, latencyMs: 0 }, 0));
    expect(r.d.attempts).toHaveLength(DEFERRAL_ROWS_KEPT);
    expect(r.d.attempts.at(-1)!.repeats).toBe(6);
  });

  it('issue 14.2: after an hour of identical deferrals the recheck backs off to a tenth of the time waited (at most 1 h); a breaker keeps its own times', () => {
    const r = new Round(ctxFor('smengo'));
    r.sleepThrough(r.attempt({ kind: 'deferred', code: 'endpoint_paused', retryInMs: MIN, latencyMs: 0 }, 0));
    r.now = T0 + 5 * HOUR;
    expect(r.attempt({ kind: 'deferred', code: 'endpoint_paused', retryInMs: MIN, latencyMs: 0 }, 0)).toMatchObject({ ms: 30 * MIN });
    r.now = T0 + 30 * HOUR;
    expect(r.attempt({ kind: 'deferred', code: 'endpoint_paused', retryInMs: MIN, latencyMs: 0 }, 0)).toMatchObject({ ms: HOUR });
    const c = new Round(ctxFor('railhook'));
    c.sleepThrough(c.attempt({ kind: 'deferred', code: 'circuit_open', retryInMs: 10 * S, latencyMs: 0 }, 0));
    c.now = T0 + 5 * HOUR;
    expect(c.attempt({ kind: 'deferred', code: 'circuit_open', retryInMs: 10 * S, latencyMs: 0 }, 0)).toMatchObject({ ms: 10 * S });
  });

  it('issue 14.2 R-STATUS: 90 days deferred without an attempt ends `exhausted` (deferral_limit); the last wait stops at the limit', () => {
    const r = new Round(ctxFor('dongtien'));
    r.sleepThrough(r.attempt({ kind: 'deferred', code: 'endpoint_paused', retryInMs: MIN, latencyMs: 0 }, 0));
    r.now = T0 + DEFERRAL_LIMIT_MS - 10 * MIN;
    const near = r.attempt({ kind: 'deferred', code: 'endpoint_paused', retryInMs: MIN, latencyMs: 0 }, 0);
    expect(near).toMatchObject({ kind: 'wait', ms: 10 * MIN });
    r.sleepThrough(near);
    expect(r.attempt({ kind: 'deferred', code: 'endpoint_paused', retryInMs: MIN, latencyMs: 0 }, 0)).toEqual({ kind: 'end' });
    expect(r.d).toMatchObject({ status: 'exhausted', lastCode: 'deferral_limit', attemptsInRound: 0 });
  });

  it('issue 14.2: an attempt in between restarts the 90-day clock', () => {
    const r = new Round(ctxFor('dongtien'));
    r.sleepThrough(r.attempt({ kind: 'deferred', code: 'endpoint_paused', retryInMs: MIN, latencyMs: 0 }, 0));
    r.now = T0 + 80 * DAY;
    r.sleepThrough(r.attempt(fail(500)));
    r.now = T0 + 95 * DAY;
    expect(r.attempt({ kind: 'deferred', code: 'endpoint_paused', retryInMs: MIN, latencyMs: 0 }, 0).kind).toBe('wait');
  });

  it('R-SMENGO-HEALTH: a dropped send (endpoint disabled) ends as the endpoint says, with a refused row and no attempt', () => {
    const r = new Round(ctxFor('smengo'));
    expect(r.attempt({ kind: 'dropped', code: 'endpoint_disabled', endAs: 'dead', latencyMs: 0 })).toEqual({ kind: 'end' });
    expect(r.d).toMatchObject({ status: 'dead', lastCode: 'endpoint_disabled', attemptsInRound: 0 });
    expect(r.d.attempts.map((a) => a.kind)).toEqual(['refused']);
  });

  it('R-STATUS: an ending set from outside (markDead) ends the round at the next `ready`, nothing sent', () => {
    const r = new Round(ctxFor('standard'));
    r.sleepThrough(r.attempt(fail(500)));
    r.state = { ...r.state, ending: { status: 'dead', code: 'endpoint_disabled' } };
    expect(r.ready()).toEqual({ kind: 'end' });
    expect(r.d).toMatchObject({ status: 'dead', lastCode: 'endpoint_disabled', attemptsInRound: 1 });
  });
});

describe('15.6 policy/next-step: SPEC §3 "lease" row, R-CRASH, issue 13.5 (worker_error)', () => {
  it('R-CRASH: a lost lease is logged `lease_expired`, not spent, and repeated at once', () => {
    const r = new Round(ctxFor('smengo'));
    expect(r.attempt({ kind: 'worker_error', lease: true })).toEqual({ kind: 'sleep', ms: 0 });
    expect(r.d).toMatchObject({ status: 'pending', attemptsInRound: 0 });
    expect(r.d.attempts[0]).toMatchObject({ kind: 'lease_expired', code: 'lease_expired' });
    expect(r.ready()).toMatchObject({ kind: 'send', attempt: 1 });
  });

  it('R-CRASH R-LOG issue 16: an outcome kept from a dropped inline send is logged at the time it went out, and spent like any attempt', () => {
    const r = new Round(ctxFor('standard', { random: 0.5 }));
    expect(r.attempt({ kind: 'worker_error', lease: true, startedAt: T0 })).toEqual({ kind: 'sleep', ms: 0 });
    r.now = T0 + 11 * S;
    const sentEarlier = { startedAt: T0 + 5, finishedAt: T0 + 2 * S };
    const kept = readSendResult({
      startedAt: new Date(sentEarlier.startedAt).toISOString(),
      finishedAt: new Date(sentEarlier.finishedAt).toISOString(),
      latencyMs: 1995,
      httpStatus: 500,
      code: 'http_500',
      kept: true,
    });
    const step = r.attempt(kept, 50);
    expect(r.d.attempts.find((a) => a.kind === 'attempt')).toMatchObject({
      startedAt: new Date(sentEarlier.startedAt).toISOString(),
      finishedAt: new Date(sentEarlier.finishedAt).toISOString(),
      httpStatus: 500,
    });
    expect(r.d).toMatchObject({ status: 'pending', attemptsInRound: 1 });
    // The retry waits at least standard's 5 s from the failure (from when the workflow heard of it).
    expect(step).toMatchObject({ kind: 'wait', untilMs: r.now + 5 * S });
  });

  it(`issue 13.5: a send that throws is repeated after 5 s; the ${WORKER_ERROR_LIMIT}th in a row spends the attempt and the schedule goes on; Herald's fault is never reported`, () => {
    const r = new Round(ctxFor('standard', { bound: true }));
    for (let i = 1; i < WORKER_ERROR_LIMIT; i++) {
      const step = r.attempt({ kind: 'worker_error', lease: false });
      expect(step).toEqual({ kind: 'sleep', ms: 5 * S });
      r.sleepThrough(step);
    }
    expect(r.d.attemptsInRound).toBe(0);
    const spent = r.attempt({ kind: 'worker_error', lease: false });
    expect(spent).toMatchObject({ kind: 'wait', ms: 5 * S, onWake: 'keep_time' });
    expect(r.d).toMatchObject({ attemptsInRound: 1, lastCode: 'worker_error', status: 'pending' });
    expect(r.steps.some((s) => s.kind === 'report')).toBe(false);
    // The count starts again after the spent attempt.
    r.sleepThrough(spent);
    expect(r.attempt({ kind: 'worker_error', lease: false })).toEqual({ kind: 'sleep', ms: 5 * S });
  });

  it('issue 13.5: a success in between resets the count of sends that threw', () => {
    const r = new Round(ctxFor('standard', { overrides: { maxAttempts: 3 } }));
    for (let i = 1; i < WORKER_ERROR_LIMIT; i++) r.sleepThrough(r.attempt({ kind: 'worker_error', lease: false }));
    r.sleepThrough(r.attempt(fail(500)));
    expect(r.state.workerErrors).toBe(0);
  });
});

describe('15.6 policy/next-step: issue 14.1 continue-as-new', () => {
  it(`14.1: past ${DELIVERY_ROLLOVER_EVENTS} history events (or when Temporal suggests it) the next step is to roll over, before any send; refused, the round goes on`, () => {
    const r = new Round(ctxFor('smengo'));
    r.history = DELIVERY_ROLLOVER_EVENTS + 1;
    expect(r.ready()).toEqual({ kind: 'roll_over' });
    expect(r.feed({ kind: 'ready', now: r.now, history: { events: 5, suggested: true } })).toEqual({ kind: 'roll_over' });
    expect(r.feed({ kind: 'ready', now: r.now, history: { events: r.history, suggested: false }, rollOverRefused: true })).toMatchObject({ kind: 'send' });
  });

  it('14.1: an ending is honoured before a rollover (the run ends, it does not continue)', () => {
    const r = new Round(ctxFor('smengo'));
    r.state = { ...r.state, ending: { status: 'dead', code: 'endpoint_disabled' } };
    r.history = DELIVERY_ROLLOVER_EVENTS + 1;
    expect(r.ready()).toEqual({ kind: 'end' });
  });
});

describe('15.6 policy/next-step: health reports (R-SMENGO-HEALTH, issue 14.4 scale discipline)', () => {
  it('a plain success on a healthy endpoint is not reported; an unbound delivery never reports', () => {
    const bound = new Round(ctxFor('smengo', { bound: true }));
    bound.ready();
    expect(bound.feed({ kind: 'sent', now: bound.now, result: { ...ok(), health: initialHealth() } })).toEqual({ kind: 'end' });
    const unbound = new Round(ctxFor('smengo'));
    unbound.ready();
    expect(unbound.feed({ kind: 'sent', now: unbound.now, result: { ...fail(410), health: initialHealth() } })).toEqual({ kind: 'end' });
  });

  it('a success after failures is reported (it clears the streak)', () => {
    const degraded: HealthState = { ...initialHealth(), consecutiveFailures: 3, streakStartedAt: T0 - HOUR };
    const r = new Round(ctxFor('bird', { bound: true }));
    r.ready();
    expect(r.feed({ kind: 'sent', now: r.now, result: { ...ok(), health: degraded } })).toMatchObject({
      kind: 'report',
      reports: [{ kind: 'attempt_succeeded' }],
    });
  });

  it('R-BIRD-REPLAY: a one-attempt replay reports its outcome as a replay and never reports exhaustion', () => {
    const ctx = ctxFor('railhook', { bound: true });
    const r = new Round(ctx);
    r.sleepThrough(r.attempt({ ...fail(400), health: initialHealth() }));
    r.state = reopen(ctx.policy, closeRound(r.state), { kind: 'replay', mode: 'single' }, r.now);
    r.ready();
    const step = r.feed({ kind: 'sent', now: r.now, result: { ...fail(400), health: initialHealth() } });
    expect(step.kind === 'report' ? step.reports : []).toEqual([
      { kind: 'attempt_failed', at: r.now, code: 'http_400', deliveryId: 'dlv_1', replay: true },
    ]);
  });

  it('the report uses the health the attempt saw, and the retry wait is measured after the report is out', () => {
    const r = new Round(ctxFor('dongtien', { bound: true }));
    r.ready();
    const step = r.feed({ kind: 'sent', now: r.now, result: { ...fail(500), health: initialHealth() } });
    expect(step).toMatchObject({ kind: 'report', reports: [{ kind: 'attempt_failed', code: 'http_500' }] });
    expect(r.d.status).toBe('processing');
    const wait = r.feed({ kind: 'reported', now: r.now + 700 });
    expect(wait).toMatchObject({ kind: 'wait', untilMs: r.now + 700 + 5 * S });
  });
});

describe('15.6 policy/next-step: SPEC §3 "manual recovery" and "log / body retention"', () => {
  it('R-RH-DLQ: a dead-letter retry gives 3 more attempts, the schedule restarting from its first step (SPEC §5)', () => {
    const ctx = ctxFor('standard', { overrides: { maxAttempts: 2 } });
    const r = new Round(ctx);
    r.sleepThrough(r.attempt(fail(500)));
    r.attempt(fail(500));
    expect(r.d.status).toBe('exhausted');
    r.now += DAY;
    r.state = reopen(ctx.policy, closeRound(r.state), { kind: 'dlq_retry' }, r.now);
    expect(r.d).toMatchObject({ status: 'pending', attemptBudget: 5, round: 1, lastCode: undefined });
    expect(r.attempt(fail(500))).toMatchObject({ kind: 'wait', ms: 5 * S });
    expect(r.d.attemptsInRound).toBe(3);
  });

  it('R-DT-REPLAY: a replay opens a new round of the policy\'s attempts and restarts the lifetime', () => {
    const ctx = ctxFor('standard');
    const r = new Round(ctx);
    r.attempt(ok());
    r.now += 10 * DAY;
    r.state = reopen(ctx.policy, closeRound(r.state), { kind: 'replay', mode: 'round' }, r.now);
    expect(r.d).toMatchObject({ status: 'pending', round: 2, attemptsInRound: 0, attemptBudget: 8 });
    expect(r.state.lifetimeStart).toBe(r.now);
    expect(r.ready()).toMatchObject({ kind: 'send', attempt: 1, createdAt: new Date(r.now).toISOString() });
  });

  it('R-DT-HEALTH: created into the dead letters (hold_overflow): one refused row, `exhausted`', () => {
    const r = new Round(ctxFor('dongtien'));
    r.state = deadOnArrival(r.state, 'hold_overflow', T0);
    expect(r.d).toMatchObject({ status: 'exhausted', lastCode: 'hold_overflow', attemptsInRound: 0 });
    expect(r.d.attempts).toEqual([
      { kind: 'refused', attempt: 1, round: 1, startedAt: new Date(T0).toISOString(), finishedAt: new Date(T0).toISOString(), latencyMs: 0, code: 'hold_overflow' },
    ]);
  });

  it('SPEC §3 "log / body retention": a finished delivery stays open 30 d (standard), 3 d (bird), 0 (smengo) from the round\'s end, and Dong Tien 90 d from creation', () => {
    const p = (preset: PresetName) => resolvePolicy(preset);
    expect(openAfterRoundMs(p('standard'), T0, T0 + 5 * DAY)).toBe(30 * DAY);
    expect(openAfterRoundMs(p('bird'), T0, T0 + 5 * DAY)).toBe(3 * DAY);
    expect(openAfterRoundMs(p('smengo'), T0, T0)).toBe(0);
    expect(openAfterRoundMs(p('dongtien'), T0, T0 + 5 * DAY)).toBe(85 * DAY);
    expect(openAfterRoundMs(p('dongtien'), T0, T0 + 91 * DAY)).toBeLessThan(0);
  });
});

describe('15.6 policy/attempt-result: the send result as one discriminated union', () => {
  const base = { startedAt: 'x', finishedAt: 'x', latencyMs: 3 };
  it('reads every shape the send activity reports, drop and deferral first, as the workflow always did', () => {
    expect(readSendResult({ ...base, httpStatus: 200 }).kind).toBe('delivered');
    expect(readSendResult({ ...base, httpStatus: 503, code: 'http_503', retryAfter: '5' })).toMatchObject({ kind: 'rejected', httpStatus: 503, retryAfter: '5' });
    expect(readSendResult({ ...base, code: 'timeout' }).kind).toBe('transport_error');
    expect(readSendResult({ ...base, code: 'private_address', notSent: true }).kind).toBe('not_sent');
    expect(readSendResult({ ...base, notSent: true, deferral: { code: 'endpoint_paused', retryInMs: 60_000 } })).toMatchObject({ kind: 'deferred', retryInMs: 60_000 });
    expect(readSendResult({ ...base, notSent: true, drop: { code: 'endpoint_disabled', endAs: 'dead' }, deferral: { code: 'x', retryInMs: 1 } }).kind).toBe('dropped');
  });
});
