import { HEALTH_RULES, applyHealth } from './engine.js';
import type { HealthInput, HealthState, PresetName } from './types.js';

/** Inputs that deliveries produce; everything else comes from people or timers and is rare. */
const DELIVERY_OUTCOMES: ReadonlySet<HealthInput['kind']> = new Set([
  'attempt_failed',
  'attempt_succeeded',
  'delivery_exhausted',
  'gone',
]);

/** JSON equality, where an absent field equals one set to undefined (Step clears that way). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const keys = new Set([...Object.keys(ra), ...Object.keys(rb)]);
  for (const k of keys) if (!sameJson(ra[k], rb[k])) return false;
  return true;
}

/**
 * Whether two states are the same health for this preset's rules: the fields no rule
 * reads are left out, and a breaker never used equals a closed one with no trips.
 */
export function sameHealth(preset: PresetName, a: HealthState, b: HealthState): boolean {
  const project = (s: HealthState) => {
    const { unconfirmed: _u, ...rest } = s;
    const out: Partial<HealthState> = { ...rest, circuit: s.circuit ?? { failures: 0, trips: 0 } };
    for (const f of HEALTH_RULES[preset].untracked) delete out[f];
    return out;
  };
  return sameJson(project(a), project(b));
}

/**
 * Scale discipline: a busy endpoint must not get one signal per delivery. Given the
 * endpoint state a delivery holds and the outcome, should the delivery report it to the
 * endpoint workflow? Exactly when applying it to that state changes the endpoint's
 * health (a field some rule reads) or produces an effect; a plain success on a healthy
 * endpoint, and a failure that only adds to a count no rule reads, return false.
 *
 * `seen` must be read AFTER the outcome (healthAfterOutcome in the send activity), not
 * the read that decided to send: between the two another delivery may have reported a
 * failure, and a success judged on the older, clean state would leave that streak
 * standing (issue 14.4). An outcome left out is then one that, at the moment of that
 * read, changed nothing, so the endpoint's health is the rule applied to every outcome.
 * A success under a preset that never reports one needs no such read (successNeedsReadAfter).
 */
export function shouldReport(preset: PresetName, seen: HealthState, input: HealthInput): boolean {
  if (!DELIVERY_OUTCOMES.has(input.kind)) return true;
  if (seen.unconfirmed) return true;
  const { state, effects } = applyHealth(preset, seen, input);
  return effects.length > 0 || !sameHealth(preset, seen, state);
}

/**
 * Issue 16: whether judging a successful attempt needs the endpoint read after it (see
 * shouldReport). Not under a preset whose successes are never reported: any state gives the
 * same answer, and the read is a describe of the endpoint per delivery.
 */
export function successNeedsReadAfter(preset: PresetName): boolean {
  return !HEALTH_RULES[preset].successNeverReported;
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
  hold_full:
    'The endpoint held 10,000 events, the most it can hold; held events moved to the dead-letter list.',
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
