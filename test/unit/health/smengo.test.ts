import { describe, it, expect } from 'vitest';
import {
  acceptsNewEvents,
  applyHealth,
  foldHealth,
  healthBanner,
  initialHealth,
  sendDecision,
  type HealthEffect,
  type HealthInput,
  type HealthState,
} from '../../../src/health/index.js';

const T0 = Date.UTC(2025, 0, 6, 9, 0, 0);
const MIN = 60 * 1000;
const HOUR = 60 * MIN;

const failed = (at: number, code = 'http_500', deliveryId = 'd1'): HealthInput => ({
  kind: 'attempt_failed',
  at,
  code,
  deliveryId,
});
const notices = (effects: HealthEffect[]) => effects.filter((e) => e.kind === 'notify');

// Smengo and standard ("as smengo") must behave the same in every case below.
describe.each(['smengo', 'standard'] as const)('R-SMENGO-HEALTH auto-disable (%s)', (preset) => {
  it('R-SMENGO-HEALTH: failed attempts alone never disable', () => {
    const inputs = Array.from({ length: 50 }, (_, i) => failed(T0 + i * HOUR, 'http_503', `d${i}`));
    const { state, effects } = foldHealth(preset, inputs, initialHealth());
    expect(state.status).toBe('active');
    expect(effects).toEqual([]);
    expect(sendDecision(preset, state, T0 + 50 * HOUR, {})).toEqual({ kind: 'send' });
  });

  it('R-SMENGO-HEALTH: the first exhausted delivery disables: pending deliveries die, one email, a banner', () => {
    const at = T0 + 28 * HOUR;
    const { state, effects } = applyHealth(preset, initialHealth(), {
      kind: 'delivery_exhausted',
      at,
      deliveryId: 'd1',
    });
    expect(state).toMatchObject({ status: 'disabled', reason: 'delivery_exhausted', since: at, episode: 1 });
    expect(effects).toEqual([
      { kind: 'kill_pending', code: 'endpoint_disabled' },
      { kind: 'notify', notice: 'disabled', episode: 1 },
    ]);
    expect(healthBanner(state)).toMatchObject({
      status: 'disabled',
      reason: 'delivery_exhausted',
      since: at,
    });
    expect(healthBanner(state)?.message).toMatch(/disabled/);
  });

  it.each<[string, HealthInput]>([
    ['a gone input', { kind: 'gone', at: T0, deliveryId: 'd1' }],
    ['a failed attempt with code gone', failed(T0, 'gone')],
  ])('R-SMENGO-HEALTH: any 410 disables at once (%s)', (_name, input) => {
    const { state, effects } = applyHealth(preset, initialHealth(), input);
    expect(state).toMatchObject({ status: 'disabled', reason: 'gone' });
    expect(effects).toContainEqual({ kind: 'kill_pending', code: 'endpoint_disabled' });
    expect(notices(effects)).toEqual([{ kind: 'notify', notice: 'disabled', episode: 1 }]);
  });

  it('R-SMENGO-HEALTH: a second exhaustion or 410 in the same episode sends nothing again', () => {
    const first = applyHealth(preset, initialHealth(), {
      kind: 'delivery_exhausted',
      at: T0,
      deliveryId: 'd1',
    });
    const { state, effects } = foldHealth(
      preset,
      [
        { kind: 'delivery_exhausted', at: T0 + 1, deliveryId: 'd2' },
        { kind: 'gone', at: T0 + 2, deliveryId: 'd3' },
        { kind: 'disable', at: T0 + 3 },
      ],
      first.state,
    );
    expect(effects).toEqual([]);
    expect(state).toEqual(first.state);
  });

  it('R-SMENGO-HEALTH: while disabled deliveries are dropped as dead and new events are not queued', () => {
    const { state } = applyHealth(preset, initialHealth(), { kind: 'gone', at: T0, deliveryId: 'd1' });
    expect(sendDecision(preset, state, T0 + MIN, { createdAt: T0 - HOUR })).toEqual({
      kind: 'drop',
      code: 'endpoint_disabled',
      endAs: 'dead',
    });
    // One that slipped past a stale cache was never queued: failed, not dead.
    expect(sendDecision(preset, state, T0 + MIN, { createdAt: T0 + MIN })).toMatchObject({
      kind: 'drop',
      endAs: 'failed',
    });
    expect(acceptsNewEvents(preset, state)).toBe('skip');
  });

  it('R-SMENGO-HEALTH: a test delivery goes out while disabled; its 2xx alone does not re-enable', () => {
    const disabled = applyHealth(preset, initialHealth(), { kind: 'gone', at: T0, deliveryId: 'd1' }).state;
    expect(sendDecision(preset, disabled, T0 + MIN, { isTest: true })).toEqual({ kind: 'send' });
    const { state, effects } = applyHealth(preset, disabled, { kind: 'test_result', at: T0 + MIN, ok: true });
    expect(state.status).toBe('disabled');
    expect(state.lastTest).toEqual({ at: T0 + MIN, ok: true });
    expect(effects).toEqual([]);
  });

  it('R-SMENGO-HEALTH: a late success from an in-flight attempt does not re-enable', () => {
    const disabled = applyHealth(preset, initialHealth(), { kind: 'gone', at: T0, deliveryId: 'd1' }).state;
    const { state } = applyHealth(preset, disabled, {
      kind: 'attempt_succeeded',
      at: T0 + 1,
      deliveryId: 'd2',
    });
    expect(state).toBe(disabled);
  });

  it('R-SMENGO-HEALTH: re-enable makes it active with a fresh streak; the next disable is a new episode', () => {
    let s: HealthState = foldHealth(preset, [failed(T0), failed(T0 + 5000)], initialHealth()).state;
    s = applyHealth(preset, s, { kind: 'delivery_exhausted', at: T0 + 28 * HOUR, deliveryId: 'd1' }).state;
    const enabled = applyHealth(preset, s, { kind: 'resume', at: T0 + 30 * HOUR });
    expect(enabled.state).toMatchObject({ status: 'active', consecutiveFailures: 0, since: T0 + 30 * HOUR });
    expect(enabled.state.streakStartedAt).toBeUndefined();
    expect(enabled.state.reason).toBeUndefined();
    expect(enabled.effects).toEqual([{ kind: 'notify', notice: 'recovered', episode: 1 }]);
    expect(healthBanner(enabled.state)).toBeUndefined();
    expect(sendDecision(preset, enabled.state, T0 + 31 * HOUR, {})).toEqual({ kind: 'send' });

    const again = applyHealth(preset, enabled.state, { kind: 'gone', at: T0 + 40 * HOUR, deliveryId: 'd9' });
    expect(again.state.episode).toBe(2);
    expect(notices(again.effects)).toEqual([{ kind: 'notify', notice: 'disabled', episode: 2 }]);
  });

  it('R-SMENGO-HEALTH: an operator disable kills pending deliveries and shows its reason', () => {
    const { state, effects } = applyHealth(preset, initialHealth(), {
      kind: 'disable',
      at: T0,
      reason: 'abuse',
    });
    expect(state).toMatchObject({ status: 'disabled', reason: 'abuse' });
    expect(effects).toContainEqual({ kind: 'kill_pending', code: 'endpoint_disabled' });
    expect(healthBanner(state)?.message).toBe('abuse');
  });

  it('R-SMENGO-HEALTH: transitions never mutate the state they are given', () => {
    const s0 = Object.freeze(initialHealth());
    expect(() => applyHealth(preset, s0, { kind: 'gone', at: T0, deliveryId: 'd1' })).not.toThrow();
    expect(s0).toEqual(initialHealth());
  });
});

describe.each(['smengo', 'standard'] as const)('R-SMENGO-PAUSE manual pause (%s)', (preset) => {
  const paused = () => applyHealth(preset, initialHealth(), { kind: 'pause', at: T0 });

  it('R-SMENGO-PAUSE: pause is not disable: no kill, no email, no episode', () => {
    const { state, effects } = paused();
    expect(state).toMatchObject({ status: 'paused', reason: 'manual', since: T0, episode: 0 });
    expect(effects).toEqual([]);
  });

  it('R-SMENGO-PAUSE: new events are not queued at all while paused', () => {
    expect(acceptsNewEvents(preset, paused().state)).toBe('skip');
    expect(acceptsNewEvents(preset, initialHealth())).toBe('queue');
    // And one that slipped past a stale cache is not sent after resume either.
    expect(sendDecision(preset, paused().state, T0 + MIN, { createdAt: T0 + 1 })).toEqual({
      kind: 'drop',
      code: 'endpoint_paused',
      endAs: 'failed',
    });
    expect(sendDecision(preset, paused().state, T0 + MIN, { isNewDelivery: true })).toMatchObject({
      kind: 'drop',
      code: 'endpoint_paused',
    });
  });

  it('R-SMENGO-PAUSE: deliveries queued before the pause wait without spending an attempt', () => {
    const d = sendDecision(preset, paused().state, T0 + MIN, { createdAt: T0 - MIN });
    expect(d).toEqual({ kind: 'defer', code: 'endpoint_paused', retryInMs: 60_000 });
    expect(sendDecision(preset, paused().state, T0 + MIN, {})).toMatchObject({ kind: 'defer' });
  });

  it('R-SMENGO-PAUSE: resume releases the queued deliveries and they are sent', () => {
    const { state, effects } = applyHealth(preset, paused().state, { kind: 'resume', at: T0 + 2 * HOUR });
    expect(state).toMatchObject({ status: 'active', since: T0 + 2 * HOUR });
    expect(effects).toEqual([{ kind: 'release_held' }]);
    expect(sendDecision(preset, state, T0 + 2 * HOUR, { createdAt: T0 - MIN })).toEqual({ kind: 'send' });
    expect(acceptsNewEvents(preset, state)).toBe('queue');
  });

  it('R-SMENGO-PAUSE: a test delivery can be sent while paused', () => {
    expect(sendDecision(preset, paused().state, T0 + MIN, { isTest: true })).toEqual({ kind: 'send' });
  });

  it('R-SMENGO-PAUSE: pausing a disabled endpoint keeps it disabled; an exhaustion while paused disables', () => {
    const disabled = applyHealth(preset, initialHealth(), { kind: 'gone', at: T0, deliveryId: 'd1' }).state;
    expect(applyHealth(preset, disabled, { kind: 'pause', at: T0 + 1 }).state).toMatchObject({
      status: 'disabled',
      reason: 'gone',
    });
    const { state, effects } = applyHealth(preset, paused().state, {
      kind: 'delivery_exhausted',
      at: T0 + HOUR,
      deliveryId: 'd1',
    });
    expect(state.status).toBe('disabled');
    expect(effects).toContainEqual({ kind: 'kill_pending', code: 'endpoint_disabled' });
  });

  it('R-SMENGO-PAUSE: resume of an already active endpoint releases nothing', () => {
    expect(applyHealth(preset, initialHealth(), { kind: 'resume', at: T0 }).effects).toEqual([]);
  });
});
