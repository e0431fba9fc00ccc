import { performance } from 'node:perf_hooks';

/**
 * Issue 16, R-SMENGO-FAIR: in `npm start` the API and the worker share one event loop, and a
 * burst of publishes takes it over. Each publish is a workflow start; while a 1,500-event
 * burst was accepted at about 175/s, the deliveries already accepted finished at about 6/s,
 * the quiet endpoints' among them (BENCHMARKS.md, session 19). Matching's fairness cannot
 * help a delivery whose worker has no time to poll for it.
 *
 * The pacer lets accepted deliveries go first. While the loop is busier than the target,
 * publishes are admitted at a rate that backs off from what was admitted and recovers while
 * there is room again; waiting publishes are released a tenant at a time in turn, so one
 * tenant's burst does not hold another's publish behind all of its own. None waits longer
 * than `maxHoldMs`, and none is refused: the pacer only delays, it never loses.
 */
export interface IntakePacing {
  /** Event-loop utilization (0-1) above which publishes are paced. */
  targetUtilization: number;
  /** The longest a publish waits before it is admitted anyway. */
  maxHoldMs: number;
}

/** How often the loop's utilization is read and the admission rate adjusted. */
export const PACE_SAMPLE_MS = 100;
/** The slowest admission the pacer backs off to, per second. */
export const PACE_MIN_RATE = 5;
/** Above this admission rate the pacer stops pacing. */
export const PACE_UNLIMITED_ABOVE = 1000;
const BACK_OFF = 0.7;
const RECOVER = 1.25;

/**
 * The next admission rate (publishes per second, Infinity: not paced) from one sample: the
 * loop's utilization over the sample and the rate publishes were admitted at during it.
 */
export function nextAdmissionRate(
  rate: number,
  utilization: number,
  admittedPerSecond: number,
  targetUtilization: number,
): number {
  if (utilization > targetUtilization) {
    const admitted = Math.max(admittedPerSecond, PACE_MIN_RATE);
    return Math.max(PACE_MIN_RATE, Math.min(rate, admitted) * BACK_OFF);
  }
  if (!Number.isFinite(rate)) return rate;
  const recovered = rate * RECOVER;
  return recovered > PACE_UNLIMITED_ABOVE ? Infinity : recovered;
}

export interface PacerClock {
  now(): number;
  /** The loop's utilization since the previous call. */
  utilization(): number;
  /** Runs `fn` after `ms`; the returned function cancels it. */
  after(ms: number, fn: () => void): () => void;
}

/**
 * This thread's event loop, read with `performance.eventLoopUtilization`. The machine's CPUs
 * were tried as well (the embedded Temporal server shares them): the quiet endpoints' p99 fell
 * to 0.2-0.5 s from the acknowledgement, but pacing at 80% of the CPUs left a fifth of them
 * idle, throughput fell to 0.84x, and the fast endpoints of (7) waited 15-22 s to be admitted
 * (BENCHMARKS.md, session 19).
 */
export function processClock(): PacerClock {
  let last = performance.eventLoopUtilization();
  return {
    now: () => Date.now(),
    utilization() {
      const current = performance.eventLoopUtilization();
      const u = performance.eventLoopUtilization(current, last).utilization;
      last = current;
      return u;
    },
    after(ms, fn) {
      const t = setTimeout(fn, ms);
      t.unref();
      return () => clearTimeout(t);
    },
  };
}

interface Waiter {
  since: number;
  admit: (heldMs: number) => void;
}

/** The pacer `HERALD_INTAKE_*` ask for, or none (either one turns it off). */
export function intakePacerFor(config: {
  HERALD_INTAKE_TARGET_UTILIZATION: number;
  HERALD_INTAKE_MAX_HOLD_MS: number;
}): IntakePacer | undefined {
  if (config.HERALD_INTAKE_TARGET_UTILIZATION >= 1 || config.HERALD_INTAKE_MAX_HOLD_MS === 0)
    return undefined;
  return new IntakePacer({
    targetUtilization: config.HERALD_INTAKE_TARGET_UTILIZATION,
    maxHoldMs: config.HERALD_INTAKE_MAX_HOLD_MS,
  });
}

export class IntakePacer {
  private rate = Infinity;
  private tokens = 0;
  private refilledAt: number;
  private admittedSinceSample = 0;
  private sampledAt: number;
  /** Waiting publishes per tenant, released a tenant at a time in turn. */
  private readonly waiting = new Map<string, Waiter[]>();
  private waiters = 0;
  private cancelSample: (() => void) | undefined;
  private cancelRelease: (() => void) | undefined;
  private closed = false;

  constructor(
    private readonly pacing: IntakePacing,
    private readonly clock: PacerClock = processClock(),
  ) {
    this.refilledAt = this.sampledAt = clock.now();
    this.scheduleSample();
  }

  /** The admission rate now (Infinity while not pacing). */
  get admissionRate(): number {
    return this.rate;
  }

  get waitingCount(): number {
    return this.waiters;
  }

  /**
   * Undefined when the publish may go at once (the loop has room), else a promise that
   * resolves with how long it was held once it may go.
   */
  admit(tenantId: string): Promise<number> | undefined {
    if (this.closed || (!Number.isFinite(this.rate) && this.waiters === 0)) {
      this.admittedSinceSample++;
      return undefined;
    }
    return new Promise((resolve) => {
      const queue = this.waiting.get(tenantId);
      const waiter = { since: this.clock.now(), admit: resolve };
      if (queue) queue.push(waiter);
      else this.waiting.set(tenantId, [waiter]);
      this.waiters++;
      this.release();
    });
  }

  /** Stops pacing: whoever waits goes now. */
  close(): void {
    this.closed = true;
    this.cancelSample?.();
    this.cancelRelease?.();
    this.rate = Infinity;
    this.release();
  }

  private scheduleSample() {
    if (this.closed) return;
    this.cancelSample = this.clock.after(PACE_SAMPLE_MS, () => {
      this.sample();
      this.scheduleSample();
    });
  }

  /** One sample: the rate follows the loop's utilization, then whoever may go goes. */
  sample(): void {
    const now = this.clock.now();
    const seconds = Math.max(now - this.sampledAt, 1) / 1000;
    const admittedPerSecond = this.admittedSinceSample / seconds;
    this.admittedSinceSample = 0;
    this.sampledAt = now;
    const before = this.rate;
    this.rate = nextAdmissionRate(
      this.rate,
      this.clock.utilization(),
      admittedPerSecond,
      this.pacing.targetUtilization,
    );
    // Pacing starts from an empty bucket: the sample that found the loop saturated already
    // admitted what the new rate allows.
    if (!Number.isFinite(before) && Number.isFinite(this.rate)) {
      this.tokens = 0;
      this.refilledAt = now;
    }
    this.release();
  }

  private release() {
    const now = this.clock.now();
    if (Number.isFinite(this.rate)) {
      const capacity = Math.max(1, (this.rate * PACE_SAMPLE_MS) / 1000);
      this.tokens = Math.min(capacity, this.tokens + ((now - this.refilledAt) * this.rate) / 1000);
    }
    this.refilledAt = now;
    // A tenant at a time, in turn: the first waiter of each tenant, then the next round.
    while (this.waiters > 0) {
      let released = false;
      for (const [tenantId, queue] of this.waiting) {
        const first = queue[0]!;
        const overdue = now - first.since >= this.pacing.maxHoldMs;
        const free = !Number.isFinite(this.rate) || this.tokens >= 1;
        if (!overdue && !free) continue;
        if (!overdue && Number.isFinite(this.rate)) this.tokens -= 1;
        queue.shift();
        if (queue.length === 0) this.waiting.delete(tenantId);
        else {
          // Its next waiter queues behind the other tenants for the next round.
          this.waiting.delete(tenantId);
          this.waiting.set(tenantId, queue);
        }
        this.waiters--;
        this.admittedSinceSample++;
        first.admit(now - first.since);
        released = true;
        break;
      }
      if (!released) break;
    }
    this.cancelRelease?.();
    this.cancelRelease = undefined;
    if (this.waiters > 0 && !this.closed) {
      const untilToken = Number.isFinite(this.rate) ? Math.ceil(((1 - this.tokens) * 1000) / this.rate) : 0;
      const untilOverdue = Math.min(
        ...[...this.waiting.values()].map((q) => q[0]!.since + this.pacing.maxHoldMs - now),
      );
      this.cancelRelease = this.clock.after(Math.max(1, Math.min(untilToken, untilOverdue)), () => {
        this.cancelRelease = undefined;
        this.release();
      });
    }
  }
}
