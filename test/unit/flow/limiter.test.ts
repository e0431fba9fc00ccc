import { describe, expect, it } from 'vitest';
import {
  CONCURRENCY_DEFERRAL_CODE,
  EARLY_MS,
  PROMISE_MS,
  RATE_DEFERRAL_CODE,
  acquire,
  emptyFlow,
  expireLeases,
  flowOptionsOf,
  nextExpiry,
  release,
  takeToken,
} from '../../../src/flow/limiter.js';

describe('R-RH-DEFER: the rate schedule (issue 17)', () => {
  it('R-RH-DEFER: the burst goes at once, then one send every 1/perSecond; near ones are granted with their time', () => {
    const s = emptyFlow();
    const r = { perSecond: 5, burst: 2 };
    expect(takeToken(s, r, 'a', 0)).toEqual({ granted: true });
    expect(takeToken(s, r, 'b', 0)).toEqual({ granted: true });
    expect(takeToken(s, r, 'c', 0)).toEqual({ granted: true, sendAt: 200 });
    expect(takeToken(s, r, 'd', 0)).toEqual({ granted: true, sendAt: 400 });
    for (let i = 0; i < 8; i++) takeToken(s, r, `x${i}`, 0);
    // 2,000 ms is as far ahead as a send is granted; the next is deferred to shortly before its time.
    expect(takeToken(s, r, 'e', 0)).toEqual({ granted: false, code: RATE_DEFERRAL_CODE, retryInMs: 2200 - EARLY_MS });
    // Asking again early keeps its time; close to it, it is granted with it.
    expect(takeToken(s, r, 'e', 100)).toEqual({ granted: false, code: RATE_DEFERRAL_CODE, retryInMs: 1100 });
    expect(takeToken(s, r, 'e', 1200)).toEqual({ granted: true, sendAt: 2200 });
    expect(takeToken(s, r, 'f', 1200)).toEqual({ granted: true, sendAt: 2400 });
  });

  it('R-RH-DEFER: one that comes back after its time is scheduled afresh, never bunched with the others', () => {
    const s = emptyFlow();
    const r = { perSecond: 5 };
    for (let i = 0; i < 12; i++) takeToken(s, r, `x${i}`, 0);
    expect(takeToken(s, r, 'late', 0)).toMatchObject({ granted: false });
    // Its time was 2,400 ms; it comes back at 5,000 ms, after everyone else's.
    expect(takeToken(s, r, 'late', 5000)).toEqual({ granted: true });
    expect(takeToken(s, r, 'next', 5000)).toEqual({ granted: true, sendAt: 5200 });
  });

  it('R-RH-DEFER: a quiet spell allows at most `burst` back to back; default burst is 1', () => {
    const s = emptyFlow();
    const r = { perSecond: 10 };
    expect(takeToken(s, r, 'a', 0)).toEqual({ granted: true });
    expect(takeToken(s, r, 'b', 10_000)).toEqual({ granted: true });
    expect(takeToken(s, r, 'c', 10_000)).toEqual({ granted: true, sendAt: 10_100 });
  });

  it('R-RH-DEFER: fractional rates space sends by 1/perSecond', () => {
    const s = emptyFlow();
    const r = { perSecond: 0.25 };
    expect(takeToken(s, r, 'a', 0)).toEqual({ granted: true });
    expect(takeToken(s, r, 'b', 0)).toEqual({ granted: false, code: RATE_DEFERRAL_CODE, retryInMs: 4000 - EARLY_MS });
  });

  it('R-RH-DEFER: over any 1 s window, no more than perSecond + burst sends, whatever the arrival pattern and lateness', () => {
    const s = emptyFlow();
    const r = { perSecond: 5, burst: 3 };
    const sends: number[] = [];
    const pending = new Map<string, number>();
    let seq = 0;
    for (let t = 0; t < 30_000; t += 37) {
      if (t % 111 === 0) pending.set(`n${seq++}`, t);
      for (const [id, at] of [...pending])
        if (at <= t) {
          const v = takeToken(s, r, id, t);
          if (v.granted) {
            sends.push(v.sendAt ?? t);
            pending.delete(id);
            // Every third one comes back late by up to 3 s.
          } else pending.set(id, t + v.retryInMs + (seq % 3 === 0 ? (t * 7) % 3000 : 0));
        }
    }
    for (const start of sends) expect(sends.filter((g) => g >= start && g < start + 1000).length).toBeLessThanOrEqual(8);
    expect(sends.length).toBeGreaterThan(100);
  });
});

describe('R-RH-DEFER: concurrency slots (issue 17)', () => {
  const o = { maxInFlight: 2 };
  it('R-RH-DEFER: at most maxInFlight leases; a release promises the slot to the oldest waiter and wakes it', () => {
    const s = emptyFlow();
    expect(acquire(s, o, { deliveryId: 'a', leaseMs: 30_000 }, 0).verdict).toEqual({ granted: true });
    expect(acquire(s, o, { deliveryId: 'b', leaseMs: 30_000 }, 0).verdict).toEqual({ granted: true });
    expect(acquire(s, o, { deliveryId: 'c', leaseMs: 30_000 }, 1).verdict).toEqual({
      granted: false,
      code: CONCURRENCY_DEFERRAL_CODE,
      retryInMs: 29_999,
    });
    expect(acquire(s, o, { deliveryId: 'd', leaseMs: 30_000 }, 2).verdict.granted).toBe(false);
    expect(release(s, o, 'a', 100)).toEqual(['c']);
    // A newcomer does not take the slot promised to c.
    expect(acquire(s, o, { deliveryId: 'e', leaseMs: 30_000 }, 101).verdict.granted).toBe(false);
    expect(acquire(s, o, { deliveryId: 'c', leaseMs: 30_000 }, 120).verdict).toEqual({ granted: true });
    expect(release(s, o, 'b', 200)).toEqual(['d']);
    expect(s.waiters).toEqual(['e']);
  });

  it('R-RH-DEFER: a lease that runs out (the worker died) frees its slot; an unclaimed promise passes on', () => {
    const s = emptyFlow();
    acquire(s, o, { deliveryId: 'a', leaseMs: 30_000 }, 0);
    acquire(s, o, { deliveryId: 'b', leaseMs: 30_000 }, 0);
    acquire(s, o, { deliveryId: 'c', leaseMs: 30_000 }, 1);
    acquire(s, o, { deliveryId: 'd', leaseMs: 30_000 }, 2);
    expect(nextExpiry(s)).toBe(30_000);
    expect(expireLeases(s, o, 30_000)).toEqual(['c', 'd']);
    expect(nextExpiry(s)).toBe(30_000 + PROMISE_MS);
    acquire(s, o, { deliveryId: 'e', leaseMs: 30_000 }, 30_001);
    // c never came back: after the promise, e gets its slot.
    expect(acquire(s, o, { deliveryId: 'd', leaseMs: 30_000 }, 30_050).verdict.granted).toBe(true);
    expect(expireLeases(s, o, 30_000 + PROMISE_MS)).toEqual(['e']);
  });

  it('R-RH-DEFER: a second send of the same delivery (its attempt repeated while the first still runs) waits for its own slot', () => {
    const s = emptyFlow();
    const one = { maxInFlight: 1 };
    expect(acquire(s, one, { deliveryId: 'a', leaseMs: 30_000, holder: 'h1' }, 0).verdict.granted).toBe(true);
    expect(acquire(s, one, { deliveryId: 'a', leaseMs: 30_000, holder: 'h2' }, 10).verdict).toMatchObject({ granted: false, code: CONCURRENCY_DEFERRAL_CODE });
    // The first send's release frees the slot for the second, promised to the delivery.
    expect(release(s, one, 'a', 100, 'h1')).toEqual(['a']);
    expect(acquire(s, one, { deliveryId: 'a', leaseMs: 30_000, holder: 'h2' }, 120).verdict.granted).toBe(true);
    expect(Object.keys(s.leases)).toEqual(['a#h2']);
  });

  it('R-RH-DEFER: with both limits, a waiter for a slot spends no token', () => {
    const s = emptyFlow();
    const both = { maxInFlight: 1, rateLimit: { perSecond: 1 } };
    expect(acquire(s, both, { deliveryId: 'a', leaseMs: 30_000 }, 0).verdict.granted).toBe(true);
    expect(acquire(s, both, { deliveryId: 'b', leaseMs: 30_000 }, 10).verdict).toMatchObject({ code: CONCURRENCY_DEFERRAL_CODE });
    expect(release(s, both, 'a', 2000)).toEqual(['b']);
    // The bucket refilled while b waited for the slot: b goes at once.
    expect(acquire(s, both, { deliveryId: 'b', leaseMs: 30_000 }, 2001).verdict.granted).toBe(true);
  });

  it('R-RH-DEFER: an endpoint without options has no flow options (the gate is never asked)', () => {
    expect(flowOptionsOf({})).toBeUndefined();
    expect(flowOptionsOf({ maxInFlight: 2 })).toEqual({ maxInFlight: 2 });
  });

  it('R-RH-DEFER: removing the limit wakes every waiter', () => {
    const s = emptyFlow();
    acquire(s, { maxInFlight: 1 }, { deliveryId: 'a', leaseMs: 30_000 }, 0);
    acquire(s, { maxInFlight: 1 }, { deliveryId: 'b', leaseMs: 30_000 }, 0);
    expect(expireLeases(s, {}, 1)).toEqual(['b']);
  });
});
