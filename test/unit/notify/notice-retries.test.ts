import { describe, expect, it } from 'vitest';
import {
  NOTICE_ATTEMPTS,
  NOTICE_ATTEMPT_MS,
  NOTICE_BACKOFF,
  NOTICE_RETRIES_MS,
  attemptsSpanMs,
} from '../../../src/notify/notice-retries.js';

const S = 1000;
const MIN = 60 * S;

describe('SPEC §4 Notifications: how long a notice is retried while the mail server is down', () => {
  it('sums the waits Temporal puts between the attempts (doubling, then capped) and each attempt at its whole timeout', () => {
    const b = { initialMs: 10 * S, maximumMs: 60 * S, coefficient: 2 };
    // Waits 10, 20, 40, 60 (capped at 60, not 80), 60 s between six attempts of 5 s each.
    expect(attemptsSpanMs(b, 6, 5 * S)).toBe((10 + 20 + 40 + 60 + 60) * S + 6 * 5 * S);
    expect(attemptsSpanMs(b, 1, 5 * S)).toBe(5 * S);
    expect(attemptsSpanMs({ ...b, coefficient: 1 }, 3, S)).toBe(2 * 10 * S + 3 * S);
  });

  it('lets a notice make its 20 attempts even when every one runs its full minute: 160.5 minutes', () => {
    expect(NOTICE_ATTEMPTS).toBe(20);
    // 10 s doubling to 10 min: 10 + 20 + 40 + 80 + 160 + 320 s, then 13 waits of 10 min.
    expect(NOTICE_RETRIES_MS).toBe(630 * S + 13 * 10 * MIN + 20 * NOTICE_ATTEMPT_MS);
    expect(NOTICE_RETRIES_MS).toBe(160.5 * MIN);
    // A 21st attempt would need longer: the budget is no larger than the 20 attempts need.
    expect(attemptsSpanMs(NOTICE_BACKOFF, NOTICE_ATTEMPTS + 1, NOTICE_ATTEMPT_MS)).toBeGreaterThan(
      NOTICE_RETRIES_MS,
    );
  });

  it('refuses what is not a backoff, rather than computing a budget of zero or NaN', () => {
    const b = NOTICE_BACKOFF;
    expect(() => attemptsSpanMs(b, 0, MIN)).toThrow(RangeError);
    expect(() => attemptsSpanMs(b, 1.5, MIN)).toThrow(RangeError);
    expect(() => attemptsSpanMs({ ...b, maximumMs: 1 }, 3, MIN)).toThrow(RangeError);
    expect(() => attemptsSpanMs({ ...b, coefficient: 0.5 }, 3, MIN)).toThrow(RangeError);
    expect(() => attemptsSpanMs(b, 3, 0)).toThrow(RangeError);
  });
});
