import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import {
  IntakePacer,
  PACE_MIN_RATE,
  PACE_SAMPLE_MS,
  PACE_UNLIMITED_ABOVE,
  intakePacerFor,
  nextAdmissionRate,
  type PacerClock,
} from '../../src/api/intake-pacer.js';

/**
 * Issue 16: in `npm start` the API and the worker share one event loop; a burst of publishes
 * took it over and the deliveries already accepted, quiet endpoints' included, all but
 * stopped (BENCHMARKS.md, session 19). Publishes now wait while the loop is saturated.
 */

/** Time, the loop's utilization and timers under the test's hand. */
function manualClock() {
  let now = 0;
  let utilization = 0;
  let timers: Array<{ at: number; fn: () => void }> = [];
  const clock: PacerClock = {
    now: () => now,
    utilization: () => utilization,
    after(ms, fn) {
      const timer = { at: now + ms, fn };
      timers.push(timer);
      return () => {
        timers = timers.filter((t) => t !== timer);
      };
    },
  };
  return {
    clock,
    setUtilization(u: number) {
      utilization = u;
    },
    /** Moves time on, running every timer that falls due, in order. */
    advance(ms: number) {
      const end = now + ms;
      for (;;) {
        const due = timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at)[0];
        if (!due) break;
        timers = timers.filter((t) => t !== due);
        now = due.at;
        due.fn();
      }
      now = end;
    },
  };
}

/** Publishes that record when they were let through. */
function publisher(pacer: IntakePacer, m: ReturnType<typeof manualClock>) {
  const admittedAt = new Map<string, number>();
  const order: string[] = [];
  const publish = (tenant: string, id: string) => {
    const held = pacer.admit(tenant);
    if (!held) {
      admittedAt.set(id, m.clock.now());
      order.push(id);
      return;
    }
    void held.then(() => {
      admittedAt.set(id, m.clock.now());
      order.push(id);
    });
  };
  return { publish, admittedAt, order };
}

const settle = () => new Promise((r) => setImmediate(r));

describe('issue 16: the admission rate follows the event loop (nextAdmissionRate)', () => {
  it('a saturated loop starts pacing below what it was admitting', () => {
    expect(nextAdmissionRate(Infinity, 0.95, 200, 0.8)).toBeCloseTo(140);
  });

  it('still saturated: backs off again from the lower of the rate and what got through', () => {
    expect(nextAdmissionRate(140, 0.95, 100, 0.8)).toBeCloseTo(70);
    expect(nextAdmissionRate(50, 0.95, 100, 0.8)).toBeCloseTo(35);
  });

  it('never backs off below the minimum rate', () => {
    expect(nextAdmissionRate(6, 1, 0, 0.8)).toBe(PACE_MIN_RATE);
  });

  it('a loop with room lets the rate recover, and stops pacing past the ceiling', () => {
    expect(nextAdmissionRate(100, 0.5, 100, 0.8)).toBeCloseTo(125);
    expect(nextAdmissionRate(PACE_UNLIMITED_ABOVE, 0.5, 0, 0.8)).toBe(Infinity);
    expect(nextAdmissionRate(Infinity, 0.5, 300, 0.8)).toBe(Infinity);
  });
});

describe('issue 16: publishes wait while the shared event loop is saturated (IntakePacer)', () => {
  it('R-SMENGO-FAIR: with room on the loop a publish goes at once', () => {
    const m = manualClock();
    const pacer = new IntakePacer({ targetUtilization: 0.8, maxHoldMs: 5_000 }, m.clock);
    m.setUtilization(0.3);
    m.advance(PACE_SAMPLE_MS * 3);
    expect(pacer.admit('tn_a')).toBeUndefined();
    expect(pacer.admissionRate).toBe(Infinity);
    pacer.close();
  });

  it('R-SMENGO-FAIR: a saturated loop lets publishes through at the paced rate, in order', async () => {
    const m = manualClock();
    const pacer = new IntakePacer({ targetUtilization: 0.8, maxHoldMs: 60_000 }, m.clock);
    const p = publisher(pacer, m);
    // 30 publishes go through in the sample that finds the loop saturated: 300/s.
    for (let i = 0; i < 30; i++) p.publish('tn_a', `early_${i}`);
    m.setUtilization(0.97);
    m.advance(PACE_SAMPLE_MS);
    expect(pacer.admissionRate).toBeCloseTo(210);
    // The loop stays saturated, so the rate keeps backing off while 200 publishes wait.
    for (let i = 0; i < 200; i++) p.publish('tn_a', `burst_${i}`);
    await settle();
    expect(pacer.waitingCount).toBeGreaterThan(150);
    for (let i = 0; i < 10; i++) {
      m.advance(PACE_SAMPLE_MS);
      await settle();
    }
    const through = [...p.admittedAt.keys()].filter((id) => id.startsWith('burst_')).length;
    // About a second at a rate that fell from 210/s towards the minimum: far fewer than 200.
    expect(through).toBeGreaterThan(0);
    expect(through).toBeLessThan(100);
    expect(pacer.admissionRate).toBeLessThan(50);
    // First in, first out within one tenant.
    const burst = p.order.filter((id) => id.startsWith('burst_'));
    expect(burst).toEqual(burst.map((_, i) => `burst_${i}`));
    pacer.close();
  });

  it('no publish waits longer than the hold, however slow the pacing', async () => {
    const m = manualClock();
    const pacer = new IntakePacer({ targetUtilization: 0.8, maxHoldMs: 2_000 }, m.clock);
    const p = publisher(pacer, m);
    m.setUtilization(1);
    m.advance(PACE_SAMPLE_MS);
    expect(pacer.admissionRate).toBe(PACE_MIN_RATE);
    for (let i = 0; i < 100; i++) p.publish('tn_a', `e_${i}`);
    const publishedAt = m.clock.now();
    for (let t = 0; t < 2_500; t += 50) {
      m.advance(50);
      await settle();
    }
    expect(p.admittedAt.size).toBe(100);
    const longest = Math.max(...[...p.admittedAt.values()].map((at) => at - publishedAt));
    expect(longest).toBeLessThanOrEqual(2_000);
    pacer.close();
  });

  it("tenants go in turn: one tenant's burst does not hold another's publish behind it", async () => {
    const m = manualClock();
    const pacer = new IntakePacer({ targetUtilization: 0.8, maxHoldMs: 60_000 }, m.clock);
    const p = publisher(pacer, m);
    m.setUtilization(1);
    m.advance(PACE_SAMPLE_MS);
    for (let i = 0; i < 50; i++) p.publish('tn_burst', `b_${i}`);
    p.publish('tn_quiet', 'q_0');
    for (let t = 0; t < 1_000 && !p.admittedAt.has('q_0'); t += 10) {
      m.advance(10);
      await settle();
    }
    expect(p.admittedAt.has('q_0')).toBe(true);
    // At most one of the burst's went before it.
    expect(p.order.indexOf('q_0')).toBeLessThanOrEqual(1);
    pacer.close();
  });

  it('once the loop has room again, pacing ends and publishes go at once', async () => {
    const m = manualClock();
    const pacer = new IntakePacer({ targetUtilization: 0.8, maxHoldMs: 60_000 }, m.clock);
    const p = publisher(pacer, m);
    m.setUtilization(1);
    m.advance(PACE_SAMPLE_MS);
    for (let i = 0; i < 20; i++) p.publish('tn_a', `e_${i}`);
    m.setUtilization(0.2);
    for (let i = 0; i < 40 && (pacer.waitingCount > 0 || Number.isFinite(pacer.admissionRate)); i++) {
      m.advance(PACE_SAMPLE_MS);
      await settle();
    }
    expect(pacer.waitingCount).toBe(0);
    expect(pacer.admissionRate).toBe(Infinity);
    expect(pacer.admit('tn_a')).toBeUndefined();
    pacer.close();
  });

  it('closing lets every waiting publish go', async () => {
    const m = manualClock();
    const pacer = new IntakePacer({ targetUtilization: 0.8, maxHoldMs: 60_000 }, m.clock);
    const p = publisher(pacer, m);
    m.setUtilization(1);
    m.advance(PACE_SAMPLE_MS);
    for (let i = 0; i < 20; i++) p.publish('tn_a', `e_${i}`);
    pacer.close();
    await settle();
    expect(p.admittedAt.size).toBe(20);
  });

  it('HERALD_INTAKE_*: 0.8 and 5 s by default; a utilization outside (0, 1] or a negative hold stops the start', () => {
    expect(loadConfig({})).toMatchObject({
      HERALD_INTAKE_TARGET_UTILIZATION: 0.8,
      HERALD_INTAKE_MAX_HOLD_MS: 5_000,
    });
    expect(() => loadConfig({ HERALD_INTAKE_TARGET_UTILIZATION: '0' })).toThrow(ConfigError);
    expect(() => loadConfig({ HERALD_INTAKE_TARGET_UTILIZATION: '1.5' })).toThrow(ConfigError);
    expect(() => loadConfig({ HERALD_INTAKE_MAX_HOLD_MS: '-1' })).toThrow(/HERALD_INTAKE_MAX_HOLD_MS/);
  });

  it('HERALD_INTAKE_TARGET_UTILIZATION=1 or HERALD_INTAKE_MAX_HOLD_MS=0 turns pacing off', () => {
    expect(
      intakePacerFor({ HERALD_INTAKE_TARGET_UTILIZATION: 1, HERALD_INTAKE_MAX_HOLD_MS: 5_000 }),
    ).toBeUndefined();
    expect(
      intakePacerFor({ HERALD_INTAKE_TARGET_UTILIZATION: 0.8, HERALD_INTAKE_MAX_HOLD_MS: 0 }),
    ).toBeUndefined();
    const on = intakePacerFor({ HERALD_INTAKE_TARGET_UTILIZATION: 0.8, HERALD_INTAKE_MAX_HOLD_MS: 5_000 });
    expect(on).toBeInstanceOf(IntakePacer);
    on!.close();
  });
});
