import type { DeliveryPolicy } from './types.js';
import { retryAfterApplies } from './retry-after.js';

function assertAttempt(failedAttempt: number): void {
  if (!Number.isInteger(failedAttempt) || failedAttempt < 1) {
    throw new RangeError(`failedAttempt must be an integer >= 1, got ${failedAttempt}`);
  }
}

/**
 * Scheduled delay after the given (1-based) failed attempt, before jitter.
 * Past the end of the list the last delay repeats (R-RH-CUSTOM). Whether
 * another attempt exists at all is the caller's call (maxAttempts, lifetime);
 * a manual retry's fresh round simply counts its attempts from 1 again.
 */
export function baseDelaySeconds(p: DeliveryPolicy, failedAttempt: number): number {
  assertAttempt(failedAttempt);
  const d = p.retryDelaysSeconds;
  if (d.length === 0) return 0;
  return d[Math.min(failedAttempt, d.length) - 1]!;
}

/** Whether the wait after this failed attempt gets a random factor (see JitterRange.fromAttempt). */
export function isJittered(p: DeliveryPolicy, failedAttempt: number): boolean {
  return failedAttempt + 1 >= p.jitter.fromAttempt;
}

/**
 * R-JITTER: the delay times a factor drawn uniformly from [min, max).
 * random01 comes from the caller (Temporal's seeded Math.random inside a
 * workflow) so this stays replayable; an out-of-range value is a bug and throws.
 */
export function jitteredDelayMs(p: DeliveryPolicy, failedAttempt: number, random01: number): number {
  if (!(random01 >= 0 && random01 < 1)) throw new RangeError(`random01 must be in [0,1), got ${random01}`);
  const baseMs = baseDelaySeconds(p, failedAttempt) * 1000;
  if (!isJittered(p, failedAttempt)) return baseMs;
  const factor = p.jitter.min + (p.jitter.max - p.jitter.min) * random01;
  return Math.round(baseMs * factor);
}

export interface NextWaitArgs {
  failedAttempt: number;
  random01: number;
  /** HTTP status of the failed attempt, when there was a response. */
  status?: number;
  /** Error code of the failed attempt (`timeout`, `network_...`), when there was none. */
  error?: string;
  /** Parsed Retry-After (see parseRetryAfter), if the response carried one. */
  retryAfterMs?: number;
}

/**
 * How long to wait, from the moment the attempt failed (R-DELAY), before the
 * next attempt.
 *
 * Retry-After is bounded by [minSeconds, capSeconds] and then either raises
 * the jittered delay (`max`) or replaces it (`replace`). The bounds touch the
 * header only: a 10 h step stays 10 h under a 1 h cap. Bird's floor after a
 * 429 or a timeout is applied last, so neither a short header nor a short
 * step can undercut it.
 */
export function nextWaitMs(p: DeliveryPolicy, args: NextWaitArgs): number {
  let wait = jitteredDelayMs(p, args.failedAttempt, args.random01);

  const ra = args.retryAfterMs;
  if (
    ra !== undefined &&
    Number.isFinite(ra) &&
    ra >= 0 &&
    args.status !== undefined &&
    retryAfterApplies(p, args.status)
  ) {
    const bounded = Math.min(Math.max(ra, p.retryAfter.minSeconds * 1000), p.retryAfter.capSeconds * 1000);
    wait = p.retryAfter.rule === 'max' ? Math.max(wait, bounded) : bounded;
  }

  if (args.status === 429 || args.error === 'timeout') {
    wait = Math.max(wait, p.minDelayAfter429OrTimeoutSeconds * 1000);
  }
  return wait;
}
