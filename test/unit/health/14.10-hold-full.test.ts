// Issue 14.10 (R-DT-HEALTH, seed: "past 10,000 events or 14 days the rest go to the
// dead-letter list and the endpoint is disabled"): the hold limit disables the endpoint
// like the 14 days do. The pure rules; the end to end is in test/workflows/14.10-* and
// test/load/dongtien-hold-cap.test.ts.
import { describe, expect, it } from 'vitest';
import {
  acceptsNewEvents,
  applyHealth,
  admitNewEvent,
  foldHealth,
  healthBanner,
  initialHealth,
  sendDecision,
  type HealthInput,
  type HealthState,
} from '../../../src/health/index.js';

const T0 = Date.UTC(2025, 5, 2, 8, 0, 0);
const HOUR = 3_600_000;
const failed = (at: number, deliveryId: string): HealthInput => ({ kind: 'attempt_failed', at, code: 'http_500', deliveryId });
const suspended = (): HealthState =>
  foldHealth('dongtien', [0, 1, 2, 3, 4].map((k) => failed(T0 + k * 1000, `d${k}`)), initialHealth()).state;
const holdFull = (at: number): HealthInput => ({ kind: 'hold_full', at });

describe('14.10 Dong Tien hold limit', () => {
  it('14.10 R-DT-HEALTH: with the hold at its limit the next event is a dead letter (a small limit injected)', () => {
    const s = suspended();
    expect(s.status).toBe('suspended');
    expect(admitNewEvent('dongtien', s, 2, 3)).toBe('hold');
    expect(admitNewEvent('dongtien', s, 3, 3)).toBe('dead_letter');
    // The default is the seed's 10,000.
    expect(admitNewEvent('dongtien', s, 9_999)).toBe('hold');
    expect(admitNewEvent('dongtien', s, 10_000)).toBe('dead_letter');
    expect(admitNewEvent('dongtien', initialHealth(), 10_000, 3)).toBe('queue');
  });

  it('14.10 R-DT-HEALTH: the overflow disables the endpoint, dead-letters everything held and sends the notice the 14-day path sends', () => {
    const at = T0 + 3 * HOUR;
    const { state, effects } = applyHealth('dongtien', suspended(), holdFull(at));
    expect(state).toMatchObject({ status: 'disabled', reason: 'hold_full', since: at, episode: 1 });
    expect(effects).toEqual([
      { kind: 'dead_letter_held', code: 'endpoint_disabled' },
      { kind: 'notify', notice: 'disabled', episode: 1 },
    ]);
    // A held delivery that looks after it is a dead letter; new events are not queued.
    expect(sendDecision('dongtien', state, at + 1, { createdAt: T0 + HOUR })).toEqual({
      kind: 'drop',
      code: 'endpoint_disabled',
      endAs: 'exhausted',
    });
    expect(acceptsNewEvents('dongtien', state)).toBe('skip');
    expect(healthBanner(state)?.message).toMatch(/10,000/);
  });

  it('14.10 R-DT-HEALTH: a repeated or late report changes nothing', () => {
    const once = applyHealth('dongtien', suspended(), holdFull(T0 + HOUR)).state;
    // A second overflowing event: no second notice, no second dead-lettering.
    expect(applyHealth('dongtien', once, holdFull(T0 + 2 * HOUR))).toEqual({ state: once, effects: [] });
    // Arriving after a re-enable whose drain has finished (active, nothing held): no disable.
    const active = initialHealth();
    expect(applyHealth('dongtien', active, holdFull(T0))).toEqual({ state: active, effects: [] });
  });

  it('14.10 R-DT-HEALTH: the input means nothing to the presets without a hold', () => {
    for (const preset of ['standard', 'smengo', 'railhook', 'bird'] as const) {
      const s = initialHealth();
      expect(applyHealth(preset, s, holdFull(T0))).toEqual({ state: s, effects: [] });
    }
  });
});
