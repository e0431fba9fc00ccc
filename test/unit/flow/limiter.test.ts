import { describe, expect, it } from 'vitest';
import {
  ACTIVITY_EARLY_MS,
  ACTIVITY_HOLD_MS,
  CONCURRENCY_DEFERRAL_CODE,
  EARLY_MS,
  GRANT_LEAD_MS,
  HOLD_MS,
  PACE_MARGIN,
  PROMISE_MS,
  RATE_DEFERRAL_CODE,
  RESERVATION_FORGET_MS,
  acquire,
  emptyFlow,
  expireLeases,
  flowOptionsOf,
  forgetOld,
  grantLead,
  lateBoundMs,
  nextExpiry,
  pacedStep,
  release,
  reserveTurn,
  takeToken,
} from '../../../src/flow/limiter.js';

describe('R-RH-DEFER: the rate schedule (issue 17)', () => {
  // At 5/s a step is 200 ms paced with the margin (210 ms); a turn is at least GRANT_LEAD_MS out.
  const L = GRANT_LEAD_MS;
  const S5 = pacedStep({ perSecond: 5 });
  const S10 = pacedStep({ perSecond: 10 });
  const at = (ms: number) => Math.ceil(ms);
  it('R-RH-DEFER: the step is 1/perSecond plus the margin; a missed turn is a fraction of it', () => {
    expect(PACE_MARGIN).toBeGreaterThan(0);
    expect(S5).toBeCloseTo(200 * (1 + PACE_MARGIN), 6);
    expect(S10).toBeCloseTo(100 * (1 + PACE_MARGIN), 6);
    expect(lateBoundMs({ perSecond: 5 })).toBeCloseTo(S5 / 2, 6);
    expect(lateBoundMs({ perSecond: 0.25 })).toBe(250);
    // The slack a send has on its way to the receiver before a 1 s window holds more than
    // perSecond + burst: (perSecond + burst) steps - 1 s. Without the margin that left half a
    // step after a late wake-up (101 ms at 5/s); with it, over three quarters of one.
    for (const r of [{ perSecond: 5, burst: 1 }, { perSecond: 10, burst: 1 }, { perSecond: 50, burst: 3 }]) {
      const slack = (r.perSecond + r.burst) * pacedStep(r) - 999;
      expect(slack - lateBoundMs(r)).toBeGreaterThan(0.75 * (1000 / r.perSecond));
    }
  });

  it('R-RH-DEFER: the burst goes together, then one send every paced step; every grant carries its time', () => {
    const s = emptyFlow();
    const r = { perSecond: 5, burst: 2 };
    expect(takeToken(s, r, 'a', 0)).toEqual({ granted: true, sendAt: L });
    expect(takeToken(s, r, 'b', 0)).toEqual({ granted: true, sendAt: L });
    expect(takeToken(s, r, 'c', 0)).toEqual({ granted: true, sendAt: at(L + S5) });
    expect(takeToken(s, r, 'd', 0)).toEqual({ granted: true, sendAt: at(L + 2 * S5) });
    for (let i = 0; i < 6; i++) takeToken(s, r, `x${i}`, 0);
    // 2,000 ms is as far ahead as a send is granted; the next is deferred to EARLY_MS before its time.
    const e = at(L + 9 * S5);
    expect(takeToken(s, r, 'e', 0)).toEqual({ granted: false, code: RATE_DEFERRAL_CODE, retryInMs: e - EARLY_MS });
    // Asking again early keeps its time; close to it, it is granted with it.
    expect(takeToken(s, r, 'e', 100)).toEqual({ granted: false, code: RATE_DEFERRAL_CODE, retryInMs: e - 100 - EARLY_MS });
    expect(takeToken(s, r, 'e', e - EARLY_MS)).toEqual({ granted: true, sendAt: e });
    expect(takeToken(s, r, 'f', e - EARLY_MS + 100)).toEqual({ granted: true, sendAt: at(L + 10 * S5) });
  });

  // Issue 17's 100-at-5/s run: under load deferred deliveries came back up to seconds late,
  // after their turn, and each missed turn was taken again at the schedule's end.
  it('R-RH-DEFER: a send asking as the activity is granted up to ACTIVITY_HOLD_MS ahead; a deferral says come back ACTIVITY_EARLY_MS early', () => {
    expect(ACTIVITY_EARLY_MS).toBeLessThan(ACTIVITY_HOLD_MS);
    expect(ACTIVITY_HOLD_MS).toBeLessThan(5_000); // inside the lease's grace (LEASE_GRACE_SECONDS)
    const asked = { holdMs: ACTIVITY_HOLD_MS, earlyMs: ACTIVITY_EARLY_MS };
    const s = emptyFlow();
    const r = { perSecond: 5 };
    const granted = [];
    for (let i = 0; takeToken(s, r, `g${i}`, 0, undefined, asked).granted; i++) granted.push(i);
    // As far ahead as ACTIVITY_HOLD_MS: 17 turns at 5/s, where the inline hold grants 10.
    expect(granted).toHaveLength(Math.floor((ACTIVITY_HOLD_MS - L) / S5) + 1);
    const v = takeToken(s, r, 'later', 0, undefined, asked);
    expect(v).toMatchObject({ granted: false, code: RATE_DEFERRAL_CODE });
    const back = v.granted ? 0 : v.retryInMs;
    const turn = s.reservations.later!;
    expect(turn - back).toBeGreaterThanOrEqual(ACTIVITY_EARLY_MS);
    // Back 3 s late (under load) it still finds its own turn ahead, and no turn is taken twice.
    expect(takeToken(s, r, 'later', back + 3_000, undefined, asked)).toEqual({ granted: true, sendAt: Math.ceil(turn) });
    // A request recorded without the fields keeps the inline hold (endpoint histories replay).
    const old = emptyFlow();
    let n = 0;
    while (takeToken(old, r, `o${n}`, 0).granted) n++;
    expect(n).toBe(Math.floor((HOLD_MS - L) / S5) + 1);
  });

  // Issue 17's spill-over bench: a burst to a 5/s endpoint delayed other endpoints by seconds
  // while every delivery asked at once; the publish now reserves each turn and starts it late.
  it('R-RH-DEFER: turns reserved at publish follow the schedule, a repeat gets its own back, and the send asking at it is granted it', () => {
    const s = emptyFlow();
    const r = { perSecond: 5, burst: 2 };
    const turns = Array.from({ length: 30 }, (_, i) => reserveTurn(s, r, `p${i}`, 0));
    expect(turns.slice(0, 2)).toEqual([L, L]);
    for (let i = 2; i < 30; i++) expect(turns[i]).toBe(at(L + (i - 1) * S5));
    // A repeat of the publish (a 503 retried) is told the same turn, and takes no other.
    expect(reserveTurn(s, r, 'p7', 1_000)).toBe(turns[7]);
    expect(reserveTurn(s, r, 'next', 1_000)).toBe(at(L + 29 * S5));
    // Each delivery asking a little before its turn is granted exactly that turn; none is taken twice.
    for (const i of [3, 12, 29]) expect(takeToken(s, r, `p${i}`, turns[i]! - 1_500)).toEqual({ granted: true, sendAt: turns[i] });
    // One that comes after its turn (a worker that was down) is scheduled afresh, at the end.
    expect(takeToken(s, r, 'p20', turns[20]! + 10_000)).toEqual({ granted: true, sendAt: turns[20]! + 10_000 + L });
    // A reservation nobody came for is forgotten a while after its time.
    forgetOld(s, turns[5]! + RESERVATION_FORGET_MS + 1);
    expect(s.reservations.p5).toBeUndefined();
  });

  it('R-RH-DEFER: a deferred send that comes back on time (EARLY_MS before its turn) is granted, not deferred again', () => {
    expect(EARLY_MS).toBeLessThanOrEqual(HOLD_MS);
    const s = emptyFlow();
    const r = { perSecond: 5 };
    for (let i = 0; i < 20; i++) takeToken(s, r, `x${i}`, 0);
    const v = takeToken(s, r, 'late', 0);
    expect(v.granted).toBe(false);
    const back = v.granted ? 0 : v.retryInMs;
    expect(takeToken(s, r, 'late', back)).toMatchObject({ granted: true });
  });

  it('R-RH-DEFER: one that comes back after its time is scheduled afresh, never bunched with the others', () => {
    const s = emptyFlow();
    const r = { perSecond: 5 };
    for (let i = 0; i < 12; i++) takeToken(s, r, `x${i}`, 0);
    expect(takeToken(s, r, 'late', 0)).toMatchObject({ granted: false });
    // Its turn was at 250 + 12 steps; it comes back at 5,000 ms, after everyone else's.
    expect(takeToken(s, r, 'late', 5000)).toEqual({ granted: true, sendAt: 5000 + L });
    expect(takeToken(s, r, 'next', 5000)).toEqual({ granted: true, sendAt: at(5000 + L + S5) });
  });

  it('R-RH-DEFER: a grant is never sooner than the lead, so an answer on its way does not find its turn passed', () => {
    const s = emptyFlow();
    const r = { perSecond: 10 };
    // The first of a quiet endpoint was granted "now" before, and sent whenever its answer
    // arrived, with no way to tell it was late: it went out next to the following turns.
    expect(takeToken(s, r, 'a', 0)).toEqual({ granted: true, sendAt: L });
    expect(takeToken(s, r, 'b', 10_000)).toEqual({ granted: true, sendAt: 10_000 + L });
    expect(takeToken(s, r, 'c', 10_000)).toEqual({ granted: true, sendAt: at(10_000 + L + S10) });
  });

  it('R-RH-DEFER: with each send delayed up to the slack on its way, no 1 s window at the receiver holds more than perSecond + burst', () => {
    for (const r of [{ perSecond: 5 }, { perSecond: 10 }]) {
      const s = emptyFlow();
      const bound = r.perSecond + 1;
      const slack = bound * pacedStep(r) - 999 - lateBoundMs(r);
      const arrivals: number[] = [];
      const pending = new Map<string, number>();
      let seq = 0;
      let rnd = 7;
      const next = () => (rnd = (rnd * 48271) % 2147483647) / 2147483647;
      for (let t = 0; t < 90_000; t += 13) {
        if (seq < 150 && t % 39 === 0) pending.set(`n${seq++}`, t);
        for (const [id, at] of [...pending])
          if (at <= t) {
            const v = takeToken(s, r, id, t);
            pending.delete(id);
            if (!v.granted) {
              // Every fourth comes back late, often after its turn.
              pending.set(id, t + v.retryInMs + (next() < 0.25 ? next() * 3000 : 0));
              continue;
            }
            // The sender wakes up to a few hundred ms late; past the late bound it asks again.
            const woke = v.sendAt! + (next() < 0.3 ? next() * 400 : 0);
            if (woke - v.sendAt! > lateBoundMs(r)) pending.set(id, Math.ceil(woke));
            else arrivals.push(woke + next() * (slack - (woke - v.sendAt!)));
          }
      }
      expect(arrivals.length).toBe(150);
      arrivals.sort((a, b) => a - b);
      for (const start of arrivals) expect(arrivals.filter((g) => g >= start && g < start + 1000).length).toBeLessThanOrEqual(bound);
    }
  });

  it('R-RH-DEFER: an asker whose answers take long is granted its turn that much later (within limits)', () => {
    const s = emptyFlow();
    const r = { perSecond: 10 };
    expect(takeToken(s, r, 'a', 0, 600)).toEqual({ granted: true, sendAt: 600 });
    // The schedule goes on from there; a short or absent lead is the least one.
    expect(takeToken(s, r, 'b', 0, 10)).toEqual({ granted: true, sendAt: at(600 + S10) });
    expect(grantLead(10)).toBe(GRANT_LEAD_MS);
    expect(grantLead(undefined)).toBe(GRANT_LEAD_MS);
    expect(grantLead(60_000)).toBe(HOLD_MS / 2);
    // A send asking as the activity may wait longer, so its turn may be further out.
    expect(grantLead(60_000, ACTIVITY_HOLD_MS)).toBe(ACTIVITY_HOLD_MS / 2);
    // acquire passes it on for an endpoint's own limit.
    const e = emptyFlow();
    expect(acquire(e, { rateLimit: r }, { deliveryId: 'a', leaseMs: 1000, leadMs: 700 }, 0).verdict).toEqual({ granted: true, sendAt: 700 });
  });

  it('R-RH-DEFER: fractional rates space sends by the paced 1/perSecond', () => {
    const s = emptyFlow();
    const r = { perSecond: 0.25 };
    expect(takeToken(s, r, 'a', 0)).toEqual({ granted: true, sendAt: L });
    expect(takeToken(s, r, 'b', 0)).toEqual({ granted: false, code: RATE_DEFERRAL_CODE, retryInMs: Math.floor(L + 4000 * (1 + PACE_MARGIN) - EARLY_MS) });
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
