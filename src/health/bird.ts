import { Step, unchanged } from './common.js';
import { DAY_MS, type HealthInput, type HealthState, type PresetHealthRules } from './types.js';

/** "About five days of uninterrupted failure" (R-BIRD-HEALTH), read as exactly 5 × 24 h (SPEC §5). */
export const BIRD_PAUSE_AFTER_DAYS = 5;
export const BIRD_PAUSE_AFTER_MS = BIRD_PAUSE_AFTER_DAYS * DAY_MS;

function pause(step: Step, at: number, reason: string): Step {
  // Deliveries still in their schedule end failed: the seed's recovery is re-enable,
  // then replay the window, not a backlog that resumes by itself.
  return step.status('paused', at, reason).effect({ kind: 'fail_pending', code: 'endpoint_paused' });
}

/** A success, a successful test or a new URL proves the receiver can be reached again. */
function clearDegradation(state: HealthState, at: number) {
  // Paused never resumes by itself, whatever arrives.
  if (state.status === 'paused') return unchanged(state);
  return new Step(state).recover(at).done();
}

function apply(state: HealthState, input: HealthInput) {
  const step = new Step(state);
  switch (input.kind) {
    case 'attempt_failed':
      // Replays are one-shot probes of a receiver the owner is fixing (R-BIRD-REPLAY).
      if (input.replay || state.status === 'paused') return unchanged(state);
      if (state.status !== 'degraded') {
        // The first failure after a success opens a new degradation period (SPEC §5).
        return step
          .clearStreak()
          .countFailure(input.at)
          .enter('degraded', input.at, 'failing')
          .notify('degraded')
          .done();
      }
      step.countFailure(input.at);
      if (input.at - (step.state.streakStartedAt ?? input.at) >= BIRD_PAUSE_AFTER_MS) {
        pause(step, input.at, 'failing_5_days').notify('paused');
      }
      return step.done();
    case 'attempt_succeeded':
      return clearDegradation(state, input.at);
    case 'test_result':
      step.set({ lastTest: { at: input.at, ok: input.ok } });
      // A failed test proves nothing either way, so it does not degrade either.
      return input.ok ? clearDegradation(step.state, input.at) : step.done();
    case 'url_changed':
      return clearDegradation(state, input.at);
    case 'pause':
      // Writable statuses are active and paused; a degraded endpoint can be paused too.
      if (state.status === 'paused') return unchanged(state);
      return pause(step, input.at, 'manual').done();
    case 'resume':
      if (state.status !== 'paused') return unchanged(state);
      return step.recover(input.at).done();
    case 'disable':
      // Bird has no disabled status: an operator stop is a pause the owner did not ask for.
      if (state.status === 'paused') return unchanged(state);
      step.enter('paused', input.at, input.reason ?? 'manual');
      return pause(step, input.at, input.reason ?? 'manual')
        .notify('paused')
        .done();
    // Exhaustion and 410 are ordinary failures on Bird (every non-2xx is retried);
    // their attempts were already counted.
    case 'delivery_exhausted':
    case 'gone':
    case 'config_edited':
    case 'tick':
    case 'drain_completed':
    case 'hold_full':
    case 'probe_claim':
      return unchanged(state);
  }
}

export const birdHealth: PresetHealthRules = {
  apply,

  sendDecision(state, _now, opts) {
    if (opts.isTest || state.status !== 'paused') return { kind: 'send' };
    // Never attempted, so no window replay can find it later: that is the seed's rule.
    return { kind: 'drop', code: 'endpoint_paused', endAs: 'failed' };
  },

  acceptsNewEvents(state) {
    return state.status === 'paused' ? 'skip' : 'queue';
  },

  // The streak's start is the 5-day clock; the failures in between are only counted.
  untracked: ['consecutiveFailures'],

  // A success clears the degradation and stops the 5-day clock.
  successNeverReported: false,

  nextWakeAt: () => undefined,
};
