/**
 * How a notice (disable, suspend, degrade: SPEC §4 "Notifications") is retried while the mail
 * server or the operational webhook is down. The budget is a time rather than an attempt
 * count, so that a notice a roll-over hands to the next endpoint run retries only for what is
 * left of it. It is worked out from the backoff below, so the two cannot drift apart.
 */

/** An activity's retry backoff, as Temporal applies it between attempts. */
export interface Backoff {
  /** Temporal's `initialInterval`: the wait after the first failed attempt. */
  initialMs: number;
  /** Temporal's `maximumInterval`: no wait is longer. */
  maximumMs: number;
  /** Temporal's `backoffCoefficient`: each wait is the previous one times this. */
  coefficient: number;
}

/**
 * The longest `attempts` attempts can take under `backoff` when each runs for all of its
 * `attemptMs` (start-to-close): a schedule-to-close of this lets every one of them run.
 */
export function attemptsSpanMs(backoff: Backoff, attempts: number, attemptMs: number): number {
  const { initialMs, maximumMs, coefficient } = backoff;
  if (!Number.isInteger(attempts) || attempts < 1)
    throw new RangeError(`attempts must be an integer >= 1, got ${attempts}`);
  if (!(initialMs > 0 && maximumMs >= initialMs && coefficient >= 1 && attemptMs > 0))
    throw new RangeError(`not a backoff: ${JSON.stringify({ ...backoff, attemptMs })}`);
  let total = attempts * attemptMs;
  let wait = initialMs;
  for (let i = 1; i < attempts; i++) {
    total += Math.min(wait, maximumMs);
    wait *= coefficient;
  }
  return total;
}

/** 10 s doubling to 10 minutes apart. */
export const NOTICE_BACKOFF: Backoff = { initialMs: 10_000, maximumMs: 10 * 60_000, coefficient: 2 };
/** One attempt: an SMTP exchange or an operational webhook's POST. */
export const NOTICE_ATTEMPT_MS = 60_000;
/** How many attempts a notice gets at the least. */
export const NOTICE_ATTEMPTS = 20;
/** How long a notice is retried, from its first attempt: 160.5 minutes. */
export const NOTICE_RETRIES_MS = attemptsSpanMs(NOTICE_BACKOFF, NOTICE_ATTEMPTS, NOTICE_ATTEMPT_MS);
