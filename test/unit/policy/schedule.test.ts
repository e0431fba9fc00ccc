import { describe, it, expect } from 'vitest';
import { baseDelaySeconds, isJittered, jitteredDelayMs, nextWaitMs } from '../../../src/policy/schedule.js';
import { PRESETS, PRESET_NAMES, applyOperatorSettings, resolvePolicy } from '../../../src/policy/policy.js';

const M = 60;
const H = 3600;
const ALMOST_1 = 1 - 1e-9;

describe('R-DELAY base schedule per preset', () => {
  const table = {
    standard: [5, 5 * M, 30 * M, 2 * H, 5 * H, 10 * H, 10 * H],
    smengo: [5, 5 * M, 30 * M, 2 * H, 5 * H, 10 * H, 10 * H],
    bird: [5, 5 * M, 30 * M, 2 * H, 5 * H, 10 * H, 10 * H],
    dongtien: [5, 5 * M, 30 * M, 2 * H, 5 * H, 10 * H, 10 * H],
    railhook: [M, 5 * M, 15 * M, H, 6 * H, 24 * H],
  } as const;

  it.each(PRESET_NAMES)('R-DELAY: %s waits the seed’s delay after each failed attempt', (name) => {
    const p = PRESETS[name];
    const got = Array.from({ length: p.maxAttempts - 1 }, (_, i) => baseDelaySeconds(p, i + 1));
    expect(got).toEqual(table[name]);
  });

  it('R-RH-CUSTOM: with more attempts than delays, the last delay repeats', () => {
    const p = resolvePolicy('railhook', { maxAttempts: 10 });
    expect([7, 8, 9].map((k) => baseDelaySeconds(p, k))).toEqual([24 * H, 24 * H, 24 * H]);
    const q = resolvePolicy('railhook', { maxAttempts: 5, retryDelays: [10, 20] });
    expect([1, 2, 3, 4].map((k) => baseDelaySeconds(q, k))).toEqual([10, 20, 20, 20]);
  });

  it('R-RH-CUSTOM: a custom delay of 0 saved before the 1 s minimum (issue 13.6) waits 1 s x jitter, not 0', () => {
    const p = resolvePolicy('railhook', { retryDelays: [0] });
    expect(jitteredDelayMs(p, 1, 0.7)).toBe(1200);
  });

  it('R-DELAY: failedAttempt must be a 1-based integer', () => {
    for (const k of [0, -1, 1.5, Number.NaN])
      expect(() => baseDelaySeconds(PRESETS.standard, k)).toThrow(RangeError);
  });
});

describe('R-JITTER bounds', () => {
  it.each(PRESET_NAMES)('R-JITTER: %s stays within [min, max) of every step', (name) => {
    const p = PRESETS[name];
    for (let k = 1; k < p.maxAttempts; k++) {
      const ms = baseDelaySeconds(p, k) * 1000;
      expect(jitteredDelayMs(p, k, 0)).toBe(Math.round(ms * p.jitter.min));
      const high = jitteredDelayMs(p, k, ALMOST_1);
      expect(high).toBeLessThanOrEqual(Math.round(ms * p.jitter.max));
      expect(high).toBeGreaterThan(ms * (p.jitter.max - 0.001));
      expect(jitteredDelayMs(p, k, 0.5)).toBe(Math.round(ms * ((p.jitter.min + p.jitter.max) / 2)));
    }
  });

  it('R-JITTER: railhook spreads each interval from 50% to 150%', () => {
    expect(jitteredDelayMs(PRESETS.railhook, 2, 0)).toBe(150_000);
    expect(jitteredDelayMs(PRESETS.railhook, 2, ALMOST_1)).toBe(450_000);
  });

  it('R-JITTER: bird moves a 5 minute step between 4 and 6 minutes', () => {
    expect(jitteredDelayMs(PRESETS.bird, 2, 0)).toBe(4 * 60_000);
    expect(jitteredDelayMs(PRESETS.bird, 2, ALMOST_1)).toBe(6 * 60_000);
  });

  it('R-JITTER: smengo/standard ±10% on the 5 s step', () => {
    for (const p of [PRESETS.smengo, PRESETS.standard]) {
      expect(jitteredDelayMs(p, 1, 0)).toBe(4500);
      expect(jitteredDelayMs(p, 1, ALMOST_1)).toBe(5500);
    }
  });

  it('R-JITTER: dongtien "from attempt 2" jitters the wait before attempt 2 (the 5 s step) and after', () => {
    const p = PRESETS.dongtien;
    expect(isJittered(p, 1)).toBe(true);
    expect(jitteredDelayMs(p, 1, 0)).toBe(4500);
    expect(jitteredDelayMs(p, 1, ALMOST_1)).toBe(5500);
    expect(jitteredDelayMs(p, 7, 0)).toBe(9 * H * 1000);
  });

  it('R-JITTER: fromAttempt 3 leaves the wait before attempt 2 exact and jitters the rest', () => {
    const p = resolvePolicy('standard');
    p.jitter.fromAttempt = 3;
    expect(isJittered(p, 1)).toBe(false);
    expect(jitteredDelayMs(p, 1, 0)).toBe(5000);
    expect(jitteredDelayMs(p, 1, ALMOST_1)).toBe(5000);
    expect(jitteredDelayMs(p, 2, 0)).toBe(270_000);
  });

  it('R-JITTER: a burst of failures does not retry in lockstep', () => {
    const waits = new Set(
      Array.from({ length: 100 }, (_, i) => jitteredDelayMs(PRESETS.standard, 3, i / 100)),
    );
    expect(waits.size).toBe(100);
    for (const w of waits) {
      expect(w).toBeGreaterThanOrEqual(1_620_000);
      expect(w).toBeLessThan(1_980_000);
    }
  });

  it('R-JITTER: the same random01 always gives the same delay (replay-safe)', () => {
    expect(jitteredDelayMs(PRESETS.bird, 4, 0.123456)).toBe(jitteredDelayMs(PRESETS.bird, 4, 0.123456));
  });

  it('R-JITTER: random01 outside [0,1) is a bug and throws', () => {
    for (const r of [1, -0.01, 1.5, Number.NaN])
      expect(() => jitteredDelayMs(PRESETS.standard, 1, r)).toThrow(RangeError);
  });
});

describe('R-DELAY Retry-After combination', () => {
  const at = (
    name: keyof typeof PRESETS,
    failedAttempt: number,
    extra: Partial<Parameters<typeof nextWaitMs>[1]>,
  ) => nextWaitMs(PRESETS[name], { failedAttempt, random01: 0, ...extra });

  it('R-DELAY: without a header the wait is the jittered delay', () => {
    expect(at('standard', 2, { status: 500 })).toBe(270_000);
    expect(at('railhook', 1, { error: 'network_ECONNRESET' })).toBe(30_000);
  });

  it('R-DELAY: max rule — the header can push later but never sooner', () => {
    expect(at('standard', 1, { status: 429, retryAfterMs: 120_000 })).toBe(120_000);
    expect(at('standard', 3, { status: 503, retryAfterMs: 1000 })).toBe(1_620_000);
    expect(at('standard', 1, { status: 429, retryAfterMs: 0 })).toBe(4500);
  });

  it('R-DELAY: the cap limits the header, never the schedule’s own long steps', () => {
    expect(at('standard', 1, { status: 429, retryAfterMs: 2 * H * 1000 })).toBe(H * 1000);
    // 5 h step at factor 0.9 stays 4.5 h although the header cap is 1 h.
    expect(at('standard', 5, { status: 429, retryAfterMs: 2 * H * 1000 })).toBe(4.5 * H * 1000);
    expect(at('smengo', 6, { status: 503 })).toBe(9 * H * 1000);
  });

  it('R-DELAY: standard honours the header on 429 and 503 only', () => {
    expect(at('standard', 1, { status: 503, retryAfterMs: 60_000 })).toBe(60_000);
    expect(at('standard', 1, { status: 500, retryAfterMs: 60_000 })).toBe(4500);
    expect(at('standard', 1, { status: 404, retryAfterMs: 60_000 })).toBe(4500);
  });

  it('R-DELAY: smengo honours the header on 429 and 5xx, not other 4xx', () => {
    expect(at('smengo', 1, { status: 500, retryAfterMs: 60_000 })).toBe(60_000);
    expect(at('smengo', 1, { status: 599, retryAfterMs: 60_000 })).toBe(60_000);
    expect(at('smengo', 1, { status: 404, retryAfterMs: 60_000 })).toBe(4500);
  });

  it('R-DELAY: railhook honours 429/503 only, capped at WEBHOOK_RETRY_AFTER_MAX_SECONDS', () => {
    expect(at('railhook', 1, { status: 503, retryAfterMs: 10 * H * 1000 })).toBe(6 * H * 1000);
    expect(at('railhook', 1, { status: 500, retryAfterMs: 10 * H * 1000 })).toBe(30_000);
    const ignoring = applyOperatorSettings(PRESETS.railhook, { retryAfterMaxSeconds: 0 });
    expect(nextWaitMs(ignoring, { failedAttempt: 1, random01: 0, status: 429, retryAfterMs: 600_000 })).toBe(
      30_000,
    );
  });

  it('R-DELAY: bird waits at least 60 s after a 429 or a timeout', () => {
    expect(at('bird', 1, { status: 429 })).toBe(60_000);
    expect(at('bird', 1, { error: 'timeout' })).toBe(60_000);
    expect(at('bird', 1, { status: 429, retryAfterMs: 30_000 })).toBe(60_000);
    expect(at('bird', 1, { status: 429, retryAfterMs: 120_000 })).toBe(120_000);
    // Other failures keep the plain schedule.
    expect(at('bird', 1, { status: 500 })).toBe(4000);
    expect(at('bird', 1, { error: 'network_ECONNREFUSED' })).toBe(4000);
    // Longer steps are not shortened by the floor.
    expect(at('bird', 2, { status: 429 })).toBe(240_000);
  });

  it('R-DELAY: bird caps the header at 6 h', () => {
    expect(at('bird', 1, { status: 503, retryAfterMs: 10 * H * 1000 })).toBe(6 * H * 1000);
  });

  it('R-DELAY: the floor is 0 for every preset but bird', () => {
    for (const name of ['standard', 'smengo', 'railhook', 'dongtien'] as const) {
      expect(at(name, 1, { error: 'timeout' })).toBe(jitterFloor(name));
    }
    function jitterFloor(name: keyof typeof PRESETS) {
      return Math.round(PRESETS[name].retryDelaysSeconds[0]! * 1000 * PRESETS[name].jitter.min);
    }
  });

  it('R-DELAY: dongtien replaces the schedule with the header, even when shorter', () => {
    expect(at('dongtien', 4, { status: 500, retryAfterMs: 10_000 })).toBe(10_000);
    expect(at('dongtien', 1, { status: 404, retryAfterMs: 120_000 })).toBe(120_000);
    expect(at('dongtien', 1, { status: 302, retryAfterMs: 120_000 })).toBe(120_000);
  });

  it('R-DELAY: dongtien clamps the header to [1 s, 24 h]', () => {
    expect(at('dongtien', 4, { status: 503, retryAfterMs: 0 })).toBe(1000);
    expect(at('dongtien', 1, { status: 503, retryAfterMs: 48 * H * 1000 })).toBe(24 * H * 1000);
  });

  it('R-DELAY: a header is ignored without a response status or when malformed', () => {
    expect(at('dongtien', 1, { error: 'timeout', retryAfterMs: 60_000 })).toBe(4500);
    expect(at('standard', 1, { status: 429, retryAfterMs: -5 })).toBe(4500);
    expect(at('standard', 1, { status: 429, retryAfterMs: Number.NaN })).toBe(4500);
  });
});
