import { describe, expect, it } from 'vitest';
import {
  accountFor,
  type Accepted,
  type AccountingInput,
  type FinalState,
  leaseRanOut,
} from '../../../bench/chaos-accounting.js';
import type { Arrival } from '../../../bench/chaos-receiver.js';

const policy = { maxAttempts: 6, retryDelays: [1, 2, 2, 3, 3], timeoutSeconds: 2 };

function input(
  accepted: Accepted[],
  arrivals: Arrival[],
  finals: Record<string, FinalState>,
): AccountingInput {
  return {
    seed: 1,
    events: accepted.length,
    endpoints: 3,
    rate: 1,
    policy,
    goneEndpoint: 2,
    accepted,
    rejected: 0,
    publishRetries: 0,
    arrivals,
    finals: new Map(Object.entries(finals)),
    apiStatus: new Map(),
    faults: [],
    leaseExpired: new Set(),
    lastFault: 0,
    settledAt: 1,
    publishStart: 0,
    publishEnd: 1,
    command: 'test',
  };
}
const event = (eventId: string, endpoint: number, at: number, deliveries = true): Accepted => ({
  eventId,
  endpoint,
  at,
  deliveryIds: deliveries ? [`dlv_${eventId}`] : [],
});
const failed = (eventId: string, endpoint: number, attempt: number, at: number): Arrival => ({
  endpoint,
  webhookId: eventId,
  deliveryId: `dlv_${eventId}`,
  attempt,
  at,
  outcome: '5xx',
});
const exhausted: FinalState = { status: 'exhausted', attemptCount: 6, attemptBudget: 6 };

// Endpoint 0: e1 spends its 6 attempts (the last at 60 s), which disables the endpoint.
const e1 = [1, 2, 3, 4, 5, 6].map((n) => failed('e1', 0, n, n * 10_000));

describe('19 chaos accounting: an endpoint disabled by its health rule (R-SMENGO-HEALTH, standard as smengo)', () => {
  it('explains what the disable ended: a pending delivery dead `endpoint_disabled`, later events fanned out to nothing', () => {
    const r = accountFor(
      input(
        [event('e1', 0, 0), event('e2', 0, 5_000), event('e3', 0, 61_000, false)],
        [...e1, failed('e2', 0, 1, 6_000)],
        {
          e1: exhausted,
          e2: { status: 'dead', attemptCount: 1, attemptBudget: 6, lastError: 'endpoint_disabled' },
          e3: { status: 'no_delivery' },
        },
      ),
    );
    expect(r.figures.unexplained).toBe(0);
    expect(r.figures.deadAsPolicy).toBe(3);
  });

  it('does not explain an event with no delivery accepted before the disable, one sent to after it, or another endpoint', () => {
    const r = accountFor(
      input(
        [
          event('e1', 0, 0),
          event('e4', 0, 30_000, false),
          event('e5', 0, 5_000),
          event('e6', 1, 61_000, false),
        ],
        [...e1, failed('e5', 0, 1, 70_000)],
        {
          e1: exhausted,
          e4: { status: 'no_delivery' },
          e5: { status: 'dead', attemptCount: 1, attemptBudget: 6, lastError: 'endpoint_disabled' },
          e6: { status: 'no_delivery' },
        },
      ),
    );
    expect(r.unexplained.map((u) => u.eventId).sort()).toEqual(['e4', 'e5', 'e6']);
  });

  it('explains a 2xx the API does not know of only by a fault during it or a lease timeout Temporal recorded', () => {
    const ok: Arrival = { ...failed('e7', 1, 1, 5_000), outcome: 'ok' };
    const base = input([event('e7', 1, 0)], [ok], { e7: { status: 'dead', lastError: 'endpoint_disabled' } });
    base.apiStatus.set('e7', 'dead');
    expect(accountFor(base).unexplained.map((u) => u.eventId)).toEqual(['e7']);
    base.leaseExpired.add('dlv_e7');
    expect(accountFor(base).figures.unexplained).toBe(0);
  });

  // Session 9's full run: 884 events of endpoints disabled this way were unexplained.
  it('an exhausted delivery whose 2xx the worker never recorded (a kill during it) disabled the endpoint too', () => {
    // e8's attempt 3 got a 2xx while its worker was killed; the repeat of attempt 3 failed,
    // and all 6 attempts were spent: the API says exhausted, the endpoint was disabled at 60 s.
    const attempts = [1, 2, 3, 4, 5, 6].map((n) => failed('e8', 0, n, n * 10_000));
    const lost: Arrival = { ...failed('e8', 0, 3, 29_000), outcome: 'ok' };
    const later = event('e9', 0, 61_000, false);
    const run = (faults: AccountingInput['faults']) => {
      const i = input([event('e8', 0, 0), later], [...attempts, lost], { e9: { status: 'no_delivery' } });
      i.apiStatus.set('e8', 'exhausted');
      i.faults = faults;
      return accountFor(i);
    };
    const r = run([{ kind: 'worker_kill', target: 'herald-worker-1', at: 29_500, until: 31_500 }]);
    expect(r.unexplained).toEqual([]);
    expect(r.figures.delivered).toBe(1);
    expect(r.figures.deadAsPolicy).toBe(1);
    // With no fault to explain the lost 2xx, neither the exhaustion nor the disable is explained.
    expect(
      run([])
        .unexplained.map((u) => u.eventId)
        .sort(),
    ).toEqual(['e8', 'e9']);
  });

  // Session 9's second full run: e11's exhausting attempt reached the receiver at 493 s and
  // was recorded at 631 s (its workflow task waited out worker kills); a delivery sent to at
  // 613 s and 630 s, then ended `endpoint_disabled`, was counted unexplained.
  it('the disable is timed when Herald recorded the exhausting attempt, not when the receiver saw it', () => {
    const recorded: FinalState = {
      ...exhausted,
      attempts: [{ kind: 'attempt', attempt: 6, finishedAt: new Date(200_000).toISOString() }],
    };
    const dead: FinalState = {
      status: 'dead',
      attemptCount: 2,
      attemptBudget: 6,
      lastError: 'endpoint_disabled',
    };
    const run = (sentAt: number) =>
      accountFor(
        input(
          [event('e1', 0, 0), event('e10', 0, 5_000)],
          [...e1, failed('e10', 0, 1, 6_000), failed('e10', 0, 2, sentAt)],
          {
            e1: recorded,
            e10: dead,
          },
        ),
      );
    expect(run(150_000).unexplained).toEqual([]);
    // Sent to after the recorded disable (and its attempt's timeout): not explained.
    expect(run(210_000).unexplained.map((u) => u.eventId)).toEqual(['e10']);
  });
});

describe('leaseRanOut: what in a delivery history explains a repeated attempt', () => {
  it("counts a retry's activity timeout, the inline attempt's task timing out once started, and a marker's timeout", () => {
    expect(leaseRanOut({ activityTaskTimedOutEventAttributes: {} })).toBe(true);
    // R-CRASH: the first attempt runs in the first workflow task; its timeout re-runs it.
    expect(leaseRanOut({ workflowTaskTimedOutEventAttributes: { timeoutType: 1 } })).toBe(true);
    expect(leaseRanOut({ markerRecordedEventAttributes: { failure: { timeoutFailureInfo: {} } } })).toBe(
      true,
    );
  });

  it('does not count a sticky queue timing out before a worker started the task, or a plain marker', () => {
    expect(leaseRanOut({ workflowTaskTimedOutEventAttributes: { timeoutType: 2 } })).toBe(false);
    expect(leaseRanOut({ markerRecordedEventAttributes: {} })).toBe(false);
    expect(leaseRanOut({})).toBe(false);
  });
});
