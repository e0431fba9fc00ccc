// Issue 14.17 (R-BIRD-REPLAY, SPEC §5 "Replay picks deliveries whose latest attempt in the
// window failed"): the rule the window replay job applies to each delivery it lists.
import { describe, expect, it } from 'vitest';
import { latestInWindowFailed } from '../../../src/activities/replay-activities.js';
import type { AttemptRecord, DeliveryState } from '../../../src/shared/delivery-types.js';

const T = Date.UTC(2026, 0, 5, 12, 0, 0);
const MIN = 60_000;
const since = T;
const until = T + 60 * MIN;

type Row = [kind: AttemptRecord['kind'], atMin: number, code?: string, round?: number];
const delivery = (...rows: Row[]): DeliveryState => ({
  deliveryId: 'dl_1',
  eventId: 'evt_1',
  endpointId: 'ep_bird',
  status: 'exhausted',
  round: Math.max(1, ...rows.map((r) => r[3] ?? 1)),
  attemptsInRound: rows.length,
  attemptBudget: 8,
  attempts: rows.map(([kind, atMin, code, round], i) => {
    const at = new Date(T + atMin * MIN).toISOString();
    return {
      kind,
      attempt: i + 1,
      round: round ?? 1,
      startedAt: at,
      finishedAt: at,
      latencyMs: 5,
      ...(code ? { code, ...(code.startsWith('http_') ? { httpStatus: Number(code.slice(5)) } : {}) } : {}),
    };
  }),
});
const picks = (s: DeliveryState) => latestInWindowFailed(s, since, until);

describe('14.17 R-BIRD-REPLAY: the window replay picks a delivery when its latest attempt in the window failed', () => {
  it('14.17 R-BIRD-REPLAY: every attempt in the window failed: picked', () => {
    expect(picks(delivery(['attempt', 10, 'http_500'], ['attempt', 20, 'http_503']))).toBe(true);
  });

  it('14.17 R-BIRD-REPLAY: it failed and then succeeded in the window: not picked (a failure is not enough)', () => {
    expect(picks(delivery(['attempt', 10, 'http_500'], ['attempt', 20]))).toBe(false);
  });

  it('14.17 R-BIRD-REPLAY: it succeeded and a later round failed in the window: picked (the latest counts, not the first)', () => {
    expect(picks(delivery(['attempt', 10], ['attempt', 20, 'http_500', 2]))).toBe(true);
  });

  it('14.17 R-BIRD-REPLAY: the failures all fell before `since`: not picked (the window bounds it)', () => {
    expect(picks(delivery(['attempt', -30, 'http_500'], ['attempt', -10, 'http_500']))).toBe(false);
  });

  it('14.17 R-BIRD-REPLAY: failed in the window, succeeded after `until`: picked (only attempts in the window count)', () => {
    expect(picks(delivery(['attempt', 30, 'http_500'], ['attempt', 90]))).toBe(true);
  });

  it('14.17 R-BIRD-REPLAY: succeeded in the window, failed after `until`: not picked', () => {
    expect(picks(delivery(['attempt', 30], ['attempt', 90, 'http_500', 2]))).toBe(false);
  });

  it('14.17 R-BIRD-REPLAY: a deferral is not an attempt: a success followed by a deferral in the window is not picked', () => {
    expect(picks(delivery(['attempt', 10], ['deferral', 20, 'endpoint_paused', 2]))).toBe(false);
  });

  it('14.17 R-BIRD-REPLAY: the window is inclusive at both ends', () => {
    expect(picks(delivery(['attempt', 0, 'http_500']))).toBe(true);
    expect(picks(delivery(['attempt', 60, 'http_500']))).toBe(true);
    expect(picks(delivery(['attempt', -1, 'http_500'], ['attempt', 61, 'http_500']))).toBe(false);
  });
});
