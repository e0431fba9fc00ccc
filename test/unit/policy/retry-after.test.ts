import { describe, it, expect } from 'vitest';
import { MAX_RETRY_AFTER_MS, parseRetryAfter, retryAfterApplies } from '../../../src/policy/retry-after.js';
import { PRESETS, applyOperatorSettings } from '../../../src/policy/policy.js';

const NOW = new Date('2025-01-01T00:00:00Z');

describe('R-RA delta-seconds', () => {
  it.each([
    ['120', 120_000],
    ['0', 0],
    ['1', 1000],
    ['007', 7000],
    [' 5 ', 5000],
    ['86400', 86_400_000],
  ])('R-RA: "%s" -> %d ms', (v, ms) => {
    expect(parseRetryAfter(v, NOW)).toBe(ms);
  });

  it('R-RA: huge values clamp to a safe maximum instead of overflowing', () => {
    for (const v of ['2147484', '99999999999999999999', '1'.repeat(400)]) {
      const ms = parseRetryAfter(v, NOW);
      expect(ms).toBe(MAX_RETRY_AFTER_MS);
    }
    expect(MAX_RETRY_AFTER_MS).toBe(2 ** 31 - 1);
    expect(parseRetryAfter('2147483', NOW)).toBe(2_147_483_000);
  });

  it.each([
    ['-1'],
    ['-0'],
    ['1.5'],
    ['+5'],
    ['5s'],
    ['5 s'],
    ['0x10'],
    ['1e3'],
    ['abc'],
    [''],
    ['   '],
    ['1,2'],
  ])('R-RA: garbage "%s" -> undefined', (v) => {
    expect(parseRetryAfter(v, NOW)).toBeUndefined();
  });

  it('R-RA: missing header -> undefined', () => {
    expect(parseRetryAfter(null, NOW)).toBeUndefined();
    expect(parseRetryAfter(undefined, NOW)).toBeUndefined();
  });
});

describe('R-RA HTTP-date', () => {
  it('R-RA: IMF-fixdate in the future -> the difference from now', () => {
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:02:00 GMT', NOW)).toBe(120_000);
    expect(parseRetryAfter('Thu, 02 Jan 2025 00:00:00 GMT', NOW)).toBe(86_400_000);
  });

  it('R-RA: a date in the past or equal to now -> 0', () => {
    expect(parseRetryAfter('Sun, 06 Nov 1994 08:49:37 GMT', NOW)).toBe(0);
    expect(parseRetryAfter('Tue, 31 Dec 2024 23:59:59 GMT', NOW)).toBe(0);
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:00 GMT', NOW)).toBe(0);
  });

  it('R-RA: the RFC 9110 example date parses in all three forms', () => {
    const now = new Date('1994-11-06T08:49:00Z');
    expect(parseRetryAfter('Sun, 06 Nov 1994 08:49:37 GMT', now)).toBe(37_000);
    expect(parseRetryAfter('Sunday, 06-Nov-94 08:49:37 GMT', now)).toBe(37_000);
    expect(parseRetryAfter('Sun Nov  6 08:49:37 1994', now)).toBe(37_000);
  });

  it('R-RA: obsolete RFC 850 and asctime forms are accepted', () => {
    expect(parseRetryAfter('Wednesday, 01-Jan-25 00:02:00 GMT', NOW)).toBe(120_000);
    expect(parseRetryAfter('Wed Jan  1 00:02:00 2025', NOW)).toBe(120_000);
    expect(parseRetryAfter('Fri Jan 10 00:00:00 2025', NOW)).toBe(9 * 86_400_000);
  });

  it('R-RA: an RFC 850 year more than 50 years ahead belongs to the previous century', () => {
    // 2074 is within 50 years of 2025: far future, clamped.
    expect(parseRetryAfter('Monday, 01-Jan-74 00:00:00 GMT', NOW)).toBe(MAX_RETRY_AFTER_MS);
    // 2076 would be more than 50 years ahead: read as 1976, in the past.
    expect(parseRetryAfter('Thursday, 01-Jan-76 00:00:00 GMT', NOW)).toBe(0);
  });

  it('R-RA: a far-future date clamps to the safe maximum', () => {
    expect(parseRetryAfter('Fri, 31 Dec 9999 23:59:59 GMT', NOW)).toBe(MAX_RETRY_AFTER_MS);
  });

  it('R-RA: month and day names are matched case-insensitively', () => {
    expect(parseRetryAfter('wed, 01 JAN 2025 00:02:00 gmt', NOW)).toBe(120_000);
  });

  it('R-RA: 29 Feb exists only in leap years', () => {
    const now = new Date('2020-01-01T00:00:00Z');
    expect(parseRetryAfter('Thu, 29 Feb 2024 00:00:00 GMT', now)).toBeGreaterThan(0);
    expect(parseRetryAfter('Wed, 29 Feb 2023 00:00:00 GMT', now)).toBeUndefined();
    expect(
      parseRetryAfter('Tue, 29 Feb 2000 00:00:00 GMT', new Date('1999-01-01T00:00:00Z')),
    ).toBeGreaterThan(0);
    expect(parseRetryAfter('Fri, 29 Feb 2100 00:00:00 GMT', now)).toBeUndefined();
  });

  it.each([
    ['impossible day', 'Fri, 31 Feb 2025 00:00:00 GMT'],
    ['day 00', 'Wed, 00 Jan 2025 00:02:00 GMT'],
    ['hour 25', 'Wed, 01 Jan 2025 25:00:00 GMT'],
    ['minute 60', 'Wed, 01 Jan 2025 00:60:00 GMT'],
    ['one-digit day', 'Wed, 1 Jan 2025 00:02:00 GMT'],
    ['no GMT', 'Wed, 01 Jan 2025 00:02:00'],
    ['other zone', 'Wed, 01 Jan 2025 00:02:00 PST'],
    ['ISO 8601', '2025-01-01T00:02:00Z'],
    ['unknown month', 'Wed, 01 Foo 2025 00:02:00 GMT'],
    ['unknown day name', 'Xyz, 01 Jan 2025 00:02:00 GMT'],
    ['trailing text', 'Wed, 01 Jan 2025 00:02:00 GMT extra'],
  ])('R-RA: %s -> undefined', (_label, v) => {
    expect(parseRetryAfter(v, NOW)).toBeUndefined();
  });

  it('R-RA: an invalid clock makes dates unusable but not delta-seconds', () => {
    const bad = new Date(Number.NaN);
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:02:00 GMT', bad)).toBeUndefined();
    expect(parseRetryAfter('30', bad)).toBe(30_000);
  });
});

describe('R-RA which responses honour the header', () => {
  const applies = (name: keyof typeof PRESETS, statuses: number[]) =>
    statuses.map((s) => retryAfterApplies(PRESETS[name], s));

  it('R-RA: standard: 429 and 503', () => {
    expect(applies('standard', [429, 503, 500, 502, 404, 408, 301])).toEqual([
      true,
      true,
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it('R-RA: smengo: 429 and every 5xx, not other 4xx', () => {
    expect(applies('smengo', [429, 500, 502, 503, 599, 404, 408, 410, 301])).toEqual([
      true,
      true,
      true,
      true,
      true,
      false,
      false,
      false,
      false,
    ]);
  });

  it('R-RA: railhook: 429 and 503 only (a 500’s header is often a proxy leftover)', () => {
    expect(applies('railhook', [429, 503, 500, 502, 408])).toEqual([true, true, false, false, false]);
  });

  it('R-RA: bird: 429 and 503', () => {
    expect(applies('bird', [429, 503, 500, 404])).toEqual([true, true, false, false]);
  });

  it('R-RA: dongtien: any failed response, never a 2xx', () => {
    expect(applies('dongtien', [429, 503, 500, 404, 400, 301, 102, 200, 204])).toEqual([
      true,
      true,
      true,
      true,
      true,
      true,
      true,
      false,
      false,
    ]);
  });

  it('R-RA: an ignored header applies nowhere', () => {
    const p = applyOperatorSettings(PRESETS.railhook, { retryAfterMaxSeconds: 0 });
    expect(retryAfterApplies(p, 429)).toBe(false);
    expect(retryAfterApplies(p, 503)).toBe(false);
  });
});
