import { describe, expect, it } from 'vitest';
import { TokenBuckets } from '../../../src/api/rate-limit.js';
import { loadConfig } from '../../../src/config.js';

/**
 * Issue 13.6: the publish rate limit is a token bucket per tenant. These tests drive the
 * bucket with an explicit clock: a burst passes, the next request is refused with the
 * time until a token is back, refill follows the rate, and tenants do not share a bucket.
 */
describe('13.6 publish rate limit: token bucket per tenant', () => {
  it('13.6: a burst passes, the next request is refused with the wait until the next token', () => {
    const b = new TokenBuckets({ ratePerSecond: 10, burst: 3 });
    const t0 = 1_000_000;
    expect([1, 2, 3].map(() => b.take('tn_a', t0).allowed)).toEqual([true, true, true]);
    const refused = b.take('tn_a', t0);
    expect(refused).toEqual({ allowed: false, retryAfterMs: 100 });
    // Half a token's time later: still refused, with the other half to wait.
    expect(b.take('tn_a', t0 + 50)).toEqual({ allowed: false, retryAfterMs: 50 });
    expect(b.take('tn_a', t0 + 100).allowed).toBe(true);
  });

  it('13.6: tokens come back at the rate and never beyond the burst', () => {
    const b = new TokenBuckets({ ratePerSecond: 2, burst: 4 });
    const t0 = 5_000;
    for (let i = 0; i < 4; i++) expect(b.take('tn_a', t0).allowed).toBe(true);
    expect(b.take('tn_a', t0).allowed).toBe(false);
    // One second at 2/s: two tokens, not more.
    expect(b.take('tn_a', t0 + 1000).allowed).toBe(true);
    expect(b.take('tn_a', t0 + 1000).allowed).toBe(true);
    expect(b.take('tn_a', t0 + 1000).allowed).toBe(false);
    // An hour idle refills to the burst only.
    const later = t0 + 3_600_000;
    let passed = 0;
    while (b.take('tn_a', later).allowed) passed++;
    expect(passed).toBe(4);
  });

  it('13.6: one tenant spending its bucket does not slow another', () => {
    const b = new TokenBuckets({ ratePerSecond: 1, burst: 2 });
    b.take('tn_a', 0);
    b.take('tn_a', 0);
    expect(b.take('tn_a', 0).allowed).toBe(false);
    expect(b.take('tn_b', 0).allowed).toBe(true);
    expect(b.take('tn_b', 0).allowed).toBe(true);
  });

  it('13.6: a clock stepping back refills nothing; buckets kept are bounded', () => {
    const b = new TokenBuckets({ ratePerSecond: 1, burst: 1, maxKeys: 100 });
    expect(b.take('tn_a', 10_000).allowed).toBe(true);
    expect(b.take('tn_a', 9_000).allowed).toBe(false);
    for (let i = 0; i < 1000; i++) b.take(`tn_${i}`, 10_000);
    expect(b.size).toBe(100);
  });

  it('13.6: the defaults leave the benchmarks and load tests (~60 publishes/s) far below the limit', () => {
    const c = loadConfig({});
    expect(c.HERALD_PUBLISH_RATE_PER_SECOND).toBe(1000);
    expect(c.HERALD_PUBLISH_BURST).toBe(2000);
    expect(loadConfig({ HERALD_PUBLISH_RATE_PER_SECOND: '5', HERALD_PUBLISH_BURST: '7' })).toMatchObject({
      HERALD_PUBLISH_RATE_PER_SECOND: 5,
      HERALD_PUBLISH_BURST: 7,
    });
  });
});
