import { describe, it, expect } from 'vitest';
import {
  DT_HOLD_LIMIT,
  DT_HOLD_MS,
  acceptsNewEvents,
  admitNewEvent,
  applyHealth,
  foldHealth,
  initialHealth,
  nextWakeAt,
  sendDecision,
  type HealthEffect,
  type HealthInput,
  type HealthState,
} from '../../../src/health/index.js';

const T0 = Date.UTC(2025, 5, 2, 8, 0, 0);
const MIN = 60 * 1000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const FOURTEEN_DAYS = 14 * 24 * 60 * 60 * 1000;

const failed = (at: number, deliveryId = 'd1', code = 'http_500'): HealthInput => ({
  kind: 'attempt_failed',
  at,
  code,
  deliveryId,
});
const ok = (at: number, deliveryId = 'd1'): HealthInput => ({ kind: 'attempt_succeeded', at, deliveryId });
const notices = (effects: HealthEffect[]) => effects.filter((e) => e.kind === 'notify');
const apply = (state: HealthState, input: HealthInput) => applyHealth('dongtien', state, input);
const fold = (inputs: HealthInput[], from: HealthState = initialHealth()) =>
  foldHealth('dongtien', inputs, from);
/** Five failed attempts of five different deliveries, one second apart, the last at `at`. */
const fiveFailures = (at: number) => [4, 3, 2, 1, 0].map((k) => failed(at - k * 1000, `d${k}`));
const suspended = () => fold(fiveFailures(T0));

describe('R-DT-HEALTH suspension', () => {
  it('R-DT-HEALTH: the constants are the seed numbers', () => {
    expect(DT_HOLD_LIMIT).toBe(10_000);
    expect(DT_HOLD_MS).toBe(FOURTEEN_DAYS);
  });

  it('R-DT-HEALTH: four consecutive failures do not suspend', () => {
    const { state, effects } = fold(fiveFailures(T0).slice(1));
    expect(state).toMatchObject({ status: 'active', consecutiveFailures: 4 });
    expect(effects).toEqual([]);
  });

  it('R-DT-HEALTH: 5 consecutive failed attempts across deliveries suspend and notify once', () => {
    const { state, effects } = suspended();
    expect(state).toMatchObject({
      status: 'suspended',
      reason: 'consecutive_failures',
      since: T0,
      suspendedAt: T0,
      episode: 1,
    });
    expect(effects).toEqual([{ kind: 'notify', notice: 'suspended', episode: 1 }]);
  });

  it('R-DT-HEALTH: a success in between resets the count', () => {
    const { state } = fold([
      failed(T0),
      failed(T0 + 1),
      ok(T0 + 2),
      failed(T0 + 3),
      failed(T0 + 4),
      failed(T0 + 5),
    ]);
    expect(state).toMatchObject({ status: 'active', consecutiveFailures: 3 });
  });

  it('R-DT-HEALTH: replay failures count like any other (a replay is a new round of real attempts)', () => {
    const inputs = fiveFailures(T0).map((i) => ({ ...i, replay: true }));
    expect(fold(inputs).state.status).toBe('suspended');
  });

  it('R-DT-HEALTH: new events are still accepted and held; existing deliveries are held where they stand', () => {
    const s = suspended().state;
    expect(acceptsNewEvents('dongtien', s)).toBe('hold');
    expect(sendDecision('dongtien', s, T0 + DAY, {})).toEqual({
      kind: 'defer',
      code: 'endpoint_suspended',
      retryInMs: FOURTEEN_DAYS - DAY,
    });
    // A late failure or success of an attempt in flight changes nothing and sends nothing.
    const later = fold([failed(T0 + MIN, 'd9'), ok(T0 + 2 * MIN, 'd8')], s);
    expect(later.state.status).toBe('suspended');
    expect(later.effects).toEqual([]);
  });

  it('R-DT-HEALTH: past 10,000 held events the excess goes to dead letters, the endpoint stays suspended', () => {
    const s = suspended().state;
    expect(admitNewEvent('dongtien', s, 0)).toBe('hold');
    expect(admitNewEvent('dongtien', s, 9_999)).toBe('hold');
    expect(admitNewEvent('dongtien', s, 10_000)).toBe('dead_letter');
    expect(admitNewEvent('dongtien', initialHealth(), 50_000)).toBe('queue');
    expect(admitNewEvent('smengo', initialHealth(), 50_000)).toBe('queue');
  });
});

describe('R-DT-HEALTH re-enable and drain', () => {
  const resumed = () => apply(suspended().state, { kind: 'resume', at: T0 + 2 * DAY });

  it('R-DT-HEALTH: re-enable releases held events as a drain', () => {
    const { state, effects } = resumed();
    expect(state).toMatchObject({ status: 'active', draining: true, consecutiveFailures: 0 });
    expect(state.suspendedAt).toBeUndefined();
    expect(effects).toEqual([{ kind: 'notify', notice: 'recovered', episode: 1 }, { kind: 'release_held' }]);
  });

  it('R-DT-HEALTH: during the drain only the released delivery sends; new events join the hold', () => {
    const s = resumed().state;
    expect(sendDecision('dongtien', s, T0 + 2 * DAY, { drainTurn: true })).toEqual({ kind: 'send' });
    expect(sendDecision('dongtien', s, T0 + 2 * DAY, {})).toMatchObject({
      kind: 'defer',
      code: 'endpoint_suspended',
    });
    expect(acceptsNewEvents('dongtien', s)).toBe('hold');
  });

  it('R-DT-HEALTH: one failure during the drain suspends again and stops the drain (a new episode)', () => {
    const { state, effects } = apply(resumed().state, failed(T0 + 2 * DAY + MIN, 'held-1'));
    expect(state).toMatchObject({
      status: 'suspended',
      reason: 'drain_failed',
      suspendedAt: T0 + 2 * DAY + MIN,
      draining: false,
      episode: 2,
    });
    expect(effects).toEqual([{ kind: 'stop_drain' }, { kind: 'notify', notice: 'suspended', episode: 2 }]);
    expect(nextWakeAt('dongtien', state)).toBe(T0 + 2 * DAY + MIN + FOURTEEN_DAYS);
  });

  it('R-DT-HEALTH: after the drain completes the endpoint is plainly active again', () => {
    const { state } = fold(
      [ok(T0 + 2 * DAY + MIN, 'held-1'), { kind: 'drain_completed', at: T0 + 2 * DAY + 2 * MIN }],
      resumed().state,
    );
    expect(state).toMatchObject({ status: 'active', draining: false });
    expect(acceptsNewEvents('dongtien', state)).toBe('queue');
    expect(sendDecision('dongtien', state, T0 + 3 * DAY, {})).toEqual({ kind: 'send' });
    // Back to the 5-failure rule.
    expect(fold(fiveFailures(T0 + 3 * DAY).slice(1), state).state.status).toBe('active');
  });
});

describe('R-DT-HEALTH 14 days and 410', () => {
  it('R-DT-HEALTH: the endpoint workflow wakes at 14 days after suspension', () => {
    expect(nextWakeAt('dongtien', suspended().state)).toBe(T0 + FOURTEEN_DAYS);
    expect(nextWakeAt('dongtien', initialHealth())).toBeUndefined();
  });

  it('R-DT-HEALTH: a tick before 14 days changes nothing', () => {
    const s = suspended().state;
    const { state, effects } = apply(s, { kind: 'tick', at: T0 + FOURTEEN_DAYS - 1 });
    expect(state).toBe(s);
    expect(effects).toEqual([]);
  });

  it('R-DT-HEALTH: at 14 days everything still held goes to dead letters and the endpoint is disabled', () => {
    const { state, effects } = apply(suspended().state, { kind: 'tick', at: T0 + FOURTEEN_DAYS });
    expect(state).toMatchObject({
      status: 'disabled',
      reason: 'held_too_long',
      since: T0 + FOURTEEN_DAYS,
      episode: 1,
    });
    expect(effects).toEqual([
      { kind: 'dead_letter_held', code: 'endpoint_disabled' },
      { kind: 'notify', notice: 'disabled', episode: 1 },
    ]);
    expect(acceptsNewEvents('dongtien', state)).toBe('skip');
    expect(nextWakeAt('dongtien', state)).toBeUndefined();
  });

  it('R-DT-HEALTH: any input after the 14 days finds the hold expired first', () => {
    // The re-enable arrives late: the held events were already dead letters, nothing to drain.
    const { state, effects } = apply(suspended().state, { kind: 'resume', at: T0 + FOURTEEN_DAYS + HOUR });
    expect(effects).toEqual([
      { kind: 'dead_letter_held', code: 'endpoint_disabled' },
      { kind: 'notify', notice: 'disabled', episode: 1 },
      { kind: 'notify', notice: 'recovered', episode: 1 },
    ]);
    expect(state).toMatchObject({ status: 'active' });
    expect(state.draining).toBeFalsy();
  });

  it('R-DT-HEALTH: a delivery that looks after 14 days before the tick is dead-lettered, not sent', () => {
    expect(sendDecision('dongtien', suspended().state, T0 + FOURTEEN_DAYS, {})).toEqual({
      kind: 'drop',
      code: 'endpoint_disabled',
      endAs: 'exhausted',
    });
  });

  it.each<[string, HealthInput]>([
    ['a gone input', { kind: 'gone', at: T0, deliveryId: 'd1' }],
    ['a failed attempt with code gone', failed(T0, 'd1', 'gone')],
  ])('R-DT-HEALTH: a 410 disables at once and dead-letters the pending deliveries (%s)', (_n, input) => {
    const { state, effects } = apply(initialHealth(), input);
    expect(state).toMatchObject({ status: 'disabled', reason: 'gone', episode: 1 });
    expect(effects).toEqual([
      { kind: 'dead_letter_held', code: 'endpoint_disabled' },
      { kind: 'notify', notice: 'disabled', episode: 1 },
    ]);
    // Dong Tien never drops an event: a pending one ends as a dead letter.
    expect(sendDecision('dongtien', state, T0 + MIN, { createdAt: T0 - MIN })).toEqual({
      kind: 'drop',
      code: 'endpoint_disabled',
      endAs: 'exhausted',
    });
    expect(acceptsNewEvents('dongtien', state)).toBe('skip');
  });

  it('R-DT-HEALTH: a 410 while suspended disables within the same episode (one notice each)', () => {
    const { state, effects } = apply(suspended().state, { kind: 'gone', at: T0 + DAY, deliveryId: 'd1' });
    expect(state).toMatchObject({ status: 'disabled', episode: 1 });
    expect(notices(effects)).toEqual([{ kind: 'notify', notice: 'disabled', episode: 1 }]);
    const again = fold(
      [
        { kind: 'gone', at: T0 + DAY + 1, deliveryId: 'd2' },
        { kind: 'tick', at: T0 + 20 * DAY },
      ],
      state,
    );
    expect(again.effects).toEqual([]);
  });

  it('R-DT-HEALTH: a 410 during a drain stops it', () => {
    const draining = apply(suspended().state, { kind: 'resume', at: T0 + DAY }).state;
    const { effects } = apply(draining, { kind: 'gone', at: T0 + DAY + MIN, deliveryId: 'held-1' });
    expect(effects[0]).toEqual({ kind: 'stop_drain' });
    expect(effects).toContainEqual({ kind: 'dead_letter_held', code: 'endpoint_disabled' });
  });

  it('R-DT-HEALTH: re-enable after disable starts clean, and the next suspension is a new episode', () => {
    const disabled = apply(initialHealth(), { kind: 'gone', at: T0, deliveryId: 'd1' }).state;
    const enabled = apply(disabled, { kind: 'resume', at: T0 + DAY });
    expect(enabled.state).toMatchObject({ status: 'active', consecutiveFailures: 0 });
    expect(enabled.effects).toEqual([{ kind: 'notify', notice: 'recovered', episode: 1 }]);
    const again = fold(fiveFailures(T0 + 2 * DAY), enabled.state);
    expect(notices(again.effects)).toEqual([{ kind: 'notify', notice: 'suspended', episode: 2 }]);
  });

  it('R-DT-HEALTH: a test delivery goes out while suspended and does not re-enable', () => {
    const s = suspended().state;
    expect(sendDecision('dongtien', s, T0 + HOUR, { isTest: true })).toEqual({ kind: 'send' });
    expect(apply(s, { kind: 'test_result', at: T0 + HOUR, ok: true }).state.status).toBe('suspended');
  });

  it('R-DT-HEALTH: a manual pause holds events too (nothing lost) and resume drains them', () => {
    const paused = apply(initialHealth(), { kind: 'pause', at: T0 });
    expect(paused.state).toMatchObject({ status: 'paused', episode: 0 });
    expect(paused.effects).toEqual([]);
    expect(acceptsNewEvents('dongtien', paused.state)).toBe('hold');
    expect(sendDecision('dongtien', paused.state, T0 + MIN, {})).toMatchObject({
      kind: 'defer',
      code: 'endpoint_paused',
    });
    const back = apply(paused.state, { kind: 'resume', at: T0 + HOUR });
    expect(back.state).toMatchObject({ status: 'active', draining: true });
    expect(back.effects).toEqual([{ kind: 'release_held' }]);
  });
});
