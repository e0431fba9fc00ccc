import { describe, it, expect } from 'vitest';
import {
  applyHealth,
  foldHealth,
  initialHealth,
  shouldReport,
  type HealthInput,
  type HealthState,
  type PresetName,
} from '../../../src/health/index.js';

const T0 = Date.UTC(2025, 3, 7, 10, 0, 0);
const SEC = 1000;
const HOUR = 60 * 60 * SEC;
const FIVE_DAYS = 5 * 24 * 60 * 60 * 1000;

const failed = (at: number, extra: Partial<{ code: string; replay: boolean }> = {}): HealthInput => ({
  kind: 'attempt_failed',
  at,
  code: extra.code ?? 'http_500',
  deliveryId: 'd1',
  ...(extra.replay ? { replay: true } : {}),
});
const ok = (at: number, replay = false): HealthInput => ({
  kind: 'attempt_succeeded',
  at,
  deliveryId: 'd1',
  ...(replay ? { replay: true } : {}),
});
const state = (preset: PresetName, inputs: HealthInput[]): HealthState =>
  foldHealth(preset, inputs, initialHealth()).state;

const PRESETS: PresetName[] = ['standard', 'smengo', 'railhook', 'bird', 'dongtien'];

describe('shouldReport: a plain success on a healthy endpoint is never a signal', () => {
  it.each(PRESETS)('R-SMENGO-HEALTH R-BIRD-HEALTH R-DT-HEALTH R-RH-DEFER: %s', (preset) => {
    expect(shouldReport(preset, initialHealth(), ok(T0))).toBe(false);
  });

  it.each(PRESETS)(
    'R-SMENGO-HEALTH R-BIRD-HEALTH R-DT-HEALTH R-RH-DEFER: %s manual actions always reach the workflow',
    (preset) => {
      for (const input of [
        { kind: 'pause', at: T0 },
        { kind: 'resume', at: T0 },
        { kind: 'disable', at: T0 },
        { kind: 'url_changed', at: T0 },
        { kind: 'test_result', at: T0, ok: true },
        { kind: 'tick', at: T0 },
      ] satisfies HealthInput[]) {
        expect(shouldReport(preset, initialHealth(), input)).toBe(true);
      }
    },
  );
});

describe.each(['smengo', 'standard'] as const)('R-SMENGO-HEALTH shouldReport (%s)', (preset) => {
  it('R-SMENGO-HEALTH: plain failures feed no threshold and are not reported', () => {
    expect(shouldReport(preset, initialHealth(), failed(T0))).toBe(false);
  });

  it('R-SMENGO-HEALTH: exhaustion and 410 are reported', () => {
    expect(
      shouldReport(preset, initialHealth(), { kind: 'delivery_exhausted', at: T0, deliveryId: 'd1' }),
    ).toBe(true);
    expect(shouldReport(preset, initialHealth(), { kind: 'gone', at: T0, deliveryId: 'd1' })).toBe(true);
    expect(shouldReport(preset, initialHealth(), failed(T0, { code: 'gone' }))).toBe(true);
  });

  it('R-SMENGO-HEALTH: an exhaustion seen on an already disabled endpoint changes nothing', () => {
    const disabled = state(preset, [{ kind: 'gone', at: T0, deliveryId: 'd1' }]);
    expect(shouldReport(preset, disabled, { kind: 'delivery_exhausted', at: T0 + 1, deliveryId: 'd2' })).toBe(
      false,
    );
  });
});

describe('R-BIRD-HEALTH shouldReport', () => {
  const degraded = state('bird', [failed(T0)]);

  it('R-BIRD-HEALTH: the failure that starts a degradation is reported, the next ones are not', () => {
    expect(shouldReport('bird', initialHealth(), failed(T0))).toBe(true);
    expect(shouldReport('bird', degraded, failed(T0 + HOUR))).toBe(false);
  });

  it('R-BIRD-HEALTH: the failure at 5 days that pauses is reported', () => {
    expect(shouldReport('bird', degraded, failed(T0 + FIVE_DAYS))).toBe(true);
  });

  it('R-BIRD-HEALTH: the first success after failures (a replay too) is reported; replay failures are not', () => {
    expect(shouldReport('bird', degraded, ok(T0 + HOUR))).toBe(true);
    expect(shouldReport('bird', degraded, ok(T0 + HOUR, true))).toBe(true);
    expect(shouldReport('bird', initialHealth(), failed(T0, { replay: true }))).toBe(false);
  });

  it('R-BIRD-HEALTH: exhaustion and 410 change nothing on Bird', () => {
    expect(shouldReport('bird', degraded, { kind: 'delivery_exhausted', at: T0, deliveryId: 'd1' })).toBe(
      false,
    );
    expect(shouldReport('bird', degraded, { kind: 'gone', at: T0, deliveryId: 'd1' })).toBe(false);
  });
});

describe('R-DT-HEALTH shouldReport', () => {
  it('R-DT-HEALTH: every failure counts toward 5 while active; the first success after them resets', () => {
    const two = state('dongtien', [failed(T0), failed(T0 + 1)]);
    expect(shouldReport('dongtien', initialHealth(), failed(T0))).toBe(true);
    expect(shouldReport('dongtien', two, failed(T0 + 2))).toBe(true);
    expect(shouldReport('dongtien', two, ok(T0 + 3))).toBe(true);
  });

  it('R-DT-HEALTH: a failure during the drain is reported', () => {
    const s = state('dongtien', [
      ...Array.from({ length: 5 }, (_, i) => failed(T0 + i)),
      { kind: 'resume', at: T0 + HOUR },
    ]);
    expect(s.draining).toBe(true);
    expect(shouldReport('dongtien', s, failed(T0 + 2 * HOUR))).toBe(true);
  });

  it('R-DT-HEALTH: a late failure while suspended changes nothing; a 410 does', () => {
    const s = state(
      'dongtien',
      Array.from({ length: 5 }, (_, i) => failed(T0 + i)),
    );
    expect(shouldReport('dongtien', s, failed(T0 + HOUR))).toBe(false);
    expect(shouldReport('dongtien', s, { kind: 'gone', at: T0 + HOUR, deliveryId: 'd1' })).toBe(true);
  });
});

describe('R-RH-DEFER shouldReport', () => {
  const open = state(
    'railhook',
    Array.from({ length: 10 }, (_, i) => failed(T0 + i * SEC)),
  );

  it('R-RH-DEFER: failures are reported while the breaker is closed (they count toward opening it)', () => {
    expect(shouldReport('railhook', initialHealth(), failed(T0))).toBe(true);
  });

  it('R-RH-DEFER: failures of attempts in flight while open are not; the probe failing is', () => {
    expect(shouldReport('railhook', open, failed(T0 + 20 * SEC))).toBe(false);
    expect(shouldReport('railhook', open, failed(T0 + 70 * SEC))).toBe(true);
  });

  it('R-RH-DEFER: a success while the breaker is not closed is reported, and closes it', () => {
    expect(shouldReport('railhook', open, ok(T0 + 70 * SEC))).toBe(true);
    const closed = applyHealth('railhook', open, ok(T0 + 70 * SEC)).state;
    expect(shouldReport('railhook', closed, ok(T0 + 71 * SEC))).toBe(false);
  });

  it('R-RH-DEFER: exhaustion and 410 are per-delivery outcomes on Railhook', () => {
    expect(
      shouldReport('railhook', initialHealth(), { kind: 'delivery_exhausted', at: T0, deliveryId: 'd1' }),
    ).toBe(false);
  });
});
