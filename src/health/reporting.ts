import { HEALTH_RULES } from './engine.js';
import type { HealthInput, HealthState, PresetName } from './types.js';

/** Inputs that deliveries produce; everything else comes from people or timers and is rare. */
const DELIVERY_OUTCOMES: ReadonlySet<HealthInput['kind']> = new Set([
  'attempt_failed',
  'attempt_succeeded',
  'delivery_exhausted',
  'gone',
]);

function recovering(seen: HealthState): boolean {
  return (
    seen.status !== 'active' ||
    seen.consecutiveFailures > 0 ||
    seen.streakStartedAt !== undefined ||
    seen.circuit?.openUntil !== undefined
  );
}

/**
 * Scale discipline: a busy endpoint must not get one signal per delivery. Given the
 * endpoint state a delivery saw (from the cache) and the outcome, should the delivery
 * report it to the endpoint workflow? Failures that feed a threshold, outcomes that
 * would change the status, the breaker or produce an effect, and the first success
 * after failures. A plain success on a healthy endpoint returns false.
 *
 * The answer replays the input on the seen state, so it cannot drift from applyHealth.
 * A stale cache only delays a report to the next outcome, which will see fresher state.
 */
export function shouldReport(preset: PresetName, seen: HealthState, input: HealthInput): boolean {
  if (!DELIVERY_OUTCOMES.has(input.kind)) return true;
  if (input.kind === 'attempt_succeeded') return recovering(seen);
  const rules = HEALTH_RULES[preset];
  if (input.kind === 'attempt_failed' && rules.failureCounts(seen, input)) return true;
  const { state, effects } = rules.apply(seen, input);
  return (
    effects.length > 0 || state.status !== seen.status || state.circuit?.openUntil !== seen.circuit?.openUntil
  );
}

const REASON_TEXT: Readonly<Record<string, string>> = {
  delivery_exhausted: 'A delivery used up all its attempts, so the endpoint was disabled.',
  gone: 'The receiver answered 410 Gone, so the endpoint was disabled.',
  failing: 'Deliveries to this endpoint are failing.',
  failing_5_days: 'Deliveries failed without a break for 5 days, so the endpoint was paused.',
  consecutive_failures:
    'Several attempts in a row failed, so the endpoint was suspended; new events are held.',
  drain_failed: 'A held event failed while being released, so the endpoint was suspended again.',
  held_too_long: 'The endpoint stayed suspended for 14 days; held events moved to the dead-letter list.',
  manual: 'Stopped by hand.',
};

export interface HealthBanner {
  status: HealthState['status'];
  reason: string;
  message: string;
  since?: number;
}

/** The banner an endpoint card shows while it is not active (R-SMENGO-HEALTH), or undefined. */
export function healthBanner(state: HealthState): HealthBanner | undefined {
  if (state.status === 'active') return undefined;
  const reason = state.reason ?? 'manual';
  // An operator's own reason is shown as written.
  const message = REASON_TEXT[reason] ?? reason;
  return {
    status: state.status,
    reason,
    message,
    ...(state.since !== undefined ? { since: state.since } : {}),
  };
}
