import { PAUSE_RECHECK_MS, Step, isNewSince } from './common.js';
import {
  DAY_MS,
  GONE_CODE,
  MINUTE_MS,
  type Admission,
  type HealthInput,
  type HealthState,
  type PresetHealthRules,
} from './types.js';

/** "5 consecutive failures", counted across the endpoint's deliveries (SPEC §5). */
export const DT_SUSPEND_AFTER_FAILURES = 5;
/**
 * Held events per endpoint; past it the next event is a dead letter and the endpoint is
 * disabled, everything held moving to the dead letters (seed; issue 14.10).
 */
export const DT_HOLD_LIMIT = 10_000;
/** R-DT-HEALTH: days a suspended endpoint holds (the notices quote it). */
export const DT_HOLD_DAYS = 14;
/** From the suspension; then everything still held is dead-lettered and the endpoint disabled. */
export const DT_HOLD_MS = DT_HOLD_DAYS * DAY_MS;
/** The dead-letter code of an event refused because the hold is full. */
export const DT_HOLD_OVERFLOW_CODE = 'hold_overflow';
/**
 * How often a delivery waiting behind a running drain looks again (assumed). The drain
 * itself wakes each delivery on its turn; this only bounds a lost wake-up.
 */
export const DT_DRAIN_RECHECK_MS = MINUTE_MS;

function holdEndsAt(state: HealthState): number | undefined {
  return state.status === 'suspended' && state.suspendedAt !== undefined
    ? state.suspendedAt + DT_HOLD_MS
    : undefined;
}

function holdExpired(state: HealthState, at: number): boolean {
  const end = holdEndsAt(state);
  return end !== undefined && at >= end;
}

function suspend(step: Step, at: number, reason: string): Step {
  if (step.state.draining) step.effect({ kind: 'stop_drain' });
  return step.enter('suspended', at, reason).set({ suspendedAt: at, draining: false }).notify('suspended');
}

/** Disable without dropping anything: what is held becomes a dead letter, replayable later. */
function disable(step: Step, at: number, reason: string): Step {
  if (step.state.status === 'disabled') return step;
  if (step.state.draining) step.effect({ kind: 'stop_drain' });
  return step
    .enter('disabled', at, reason)
    .set({ suspendedAt: undefined, draining: false })
    .effect({ kind: 'dead_letter_held', code: 'endpoint_disabled' })
    .notify('disabled');
}

function apply(state: HealthState, input: HealthInput) {
  const step = new Step(state);
  // Whatever arrives after the 14 days finds the hold already expired: the timer's
  // `tick` may simply not have been processed yet.
  const holdEnd = holdEndsAt(state);
  if (holdEnd !== undefined && input.at >= holdEnd) disable(step, holdEnd, 'held_too_long');
  const s = step.state;
  switch (input.kind) {
    case 'attempt_failed':
      if (input.code === GONE_CODE) return disable(step, input.at, 'gone').done();
      // Held deliveries do not send, so a failure now is one that was already in flight.
      if (s.status !== 'active') return step.done();
      step.countFailure(input.at);
      // "If the endpoint fails again the drain stops": one failure is enough mid-drain.
      if (s.draining) return suspend(step, input.at, 'drain_failed').done();
      if (step.state.consecutiveFailures >= DT_SUSPEND_AFTER_FAILURES) {
        return suspend(step, input.at, 'consecutive_failures').done();
      }
      return step.done();
    case 'attempt_succeeded':
      // Re-enable is the owner's act (R-DT-HEALTH); a late success only resets the count.
      return step.clearStreak().done();
    case 'gone':
      return disable(step, input.at, 'gone').done();
    case 'test_result':
      return step.set({ lastTest: { at: input.at, ok: input.ok } }).done();
    case 'pause':
      if (s.status !== 'active') return step.done();
      if (s.draining) step.effect({ kind: 'stop_drain' });
      return step.status('paused', input.at, 'manual').set({ draining: false }).done();
    case 'resume':
      if (s.status === 'suspended' || s.status === 'paused') {
        // Held events leave one at a time in creation order, so a receiver that is only
        // half fixed sees one request fail, not a flood.
        return step
          .recover(input.at)
          .set({ suspendedAt: undefined, draining: true })
          .effect({ kind: 'release_held' })
          .done();
      }
      if (s.status === 'disabled') return step.recover(input.at).done();
      return step.done();
    case 'disable':
      return disable(step, input.at, input.reason ?? 'manual').done();
    case 'drain_completed':
      return step.set({ draining: false }).done();
    case 'hold_full':
      // Issue 14.10 (seed: past 10,000 events or 14 days "the rest go to the dead-letter
      // list and the endpoint is disabled"): the same end as the 14 days. A report that
      // comes late, after a re-enable emptied the hold, finds nothing held and changes nothing.
      if (dongtienHealth.acceptsNewEvents(s) !== 'hold') return step.done();
      return disable(step, input.at, 'hold_full').done();
    // Every failed attempt was already counted; exhaustion adds nothing on Dong Tien.
    case 'delivery_exhausted':
    case 'url_changed':
    case 'config_edited':
    case 'tick':
    case 'probe_claim':
      return step.done();
  }
}

export const dongtienHealth: PresetHealthRules = {
  apply,

  sendDecision(state, now, opts) {
    if (opts.isTest) return { kind: 'send' };
    if (state.status === 'disabled' || holdExpired(state, now)) {
      // What the hold kept is a dead letter; only an event that arrived after the
      // disable itself was never queued.
      const neverQueued = state.status === 'disabled' && isNewSince(state, opts);
      return { kind: 'drop', code: 'endpoint_disabled', endAs: neverQueued ? 'failed' : 'exhausted' };
    }
    if (state.status === 'suspended') {
      // Held where it stands until re-enable wakes it or the hold expires; the floor
      // keeps a stale cache from spinning a delivery right at the limit.
      const left = (holdEndsAt(state) ?? now) - now;
      return { kind: 'defer', code: 'endpoint_suspended', retryInMs: Math.max(left, DT_DRAIN_RECHECK_MS) };
    }
    if (state.status === 'paused')
      return { kind: 'defer', code: 'endpoint_paused', retryInMs: PAUSE_RECHECK_MS };
    if (state.draining && !opts.drainTurn) {
      return { kind: 'defer', code: 'endpoint_suspended', retryInMs: DT_DRAIN_RECHECK_MS };
    }
    return { kind: 'send' };
  },

  acceptsNewEvents(state): Admission {
    if (state.status === 'disabled') return 'skip';
    // New events join the end of the drain so creation order holds.
    if (state.status === 'active' && !state.draining) return 'queue';
    return 'hold';
  },

  // The count drives the suspension; the streak's start is only shown.
  untracked: ['streakStartedAt'],

  // A success ends the count that suspends.
  successNeverReported: false,

  nextWakeAt: holdEndsAt,
};

/**
 * Where a new event goes when the endpoint holds events and already holds `heldCount`:
 * past `limit` (DT_HOLD_LIMIT) it is dead-lettered (code DT_HOLD_OVERFLOW_CODE), and the
 * publisher then reports `hold_full`, which disables the endpoint and dead-letters what it
 * held (issue 14.10: the seed disables at either limit, not only at 14 days as SPEC §5 read).
 */
export function dongtienAdmission(
  state: HealthState,
  heldCount: number,
  limit: number = DT_HOLD_LIMIT,
): Admission | 'dead_letter' {
  const admission = dongtienHealth.acceptsNewEvents(state);
  return admission === 'hold' && heldCount >= limit ? 'dead_letter' : admission;
}
