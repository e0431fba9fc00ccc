import { PAUSE_RECHECK_MS, Step, isNewSince, unchanged } from './common.js';
import { GONE_CODE, type HealthInput, type HealthState, type PresetHealthRules } from './types.js';

/**
 * R-SMENGO-HEALTH disable: pending deliveries die rather than wait, because sending a
 * 28-hour backlog to a receiver that was just fixed would knock it over again (seed).
 */
export function disableAndKill(step: Step, at: number, reason: string): Step {
  if (step.state.status === 'disabled') return step;
  return step
    .enter('disabled', at, reason)
    .effect({ kind: 'kill_pending', code: 'endpoint_disabled' })
    .notify('disabled');
}

/** Manual pause/resume shared by the presets whose pause only holds deliveries back. */
export function manualPauseResume(
  state: HealthState,
  input: Extract<HealthInput, { kind: 'pause' | 'resume' }>,
) {
  const step = new Step(state);
  if (input.kind === 'pause') {
    // A disabled endpoint stays disabled: pausing must not hide the banner's reason.
    if (state.status === 'active') step.status('paused', input.at, 'manual');
    return step.done();
  }
  if (state.status === 'paused') return step.recover(input.at).effect({ kind: 'release_held' }).done();
  // Re-enable: SPEC §5 reads "send test, see 2xx, enable" as advice, so no test is required.
  if (state.status === 'disabled') return step.recover(input.at).done();
  return step.done();
}

function apply(state: HealthState, input: HealthInput) {
  const step = new Step(state);
  switch (input.kind) {
    case 'attempt_failed':
      if (input.code === GONE_CODE) return disableAndKill(step, input.at, 'gone').done();
      // Failures alone never disable Smengo: only an exhausted delivery does.
      if (state.status === 'disabled') return unchanged(state);
      return step.countFailure(input.at).done();
    case 'attempt_succeeded':
      // An attempt that was in flight when the endpoint was disabled does not re-enable it.
      if (state.status === 'disabled') return unchanged(state);
      return step.clearStreak().done();
    case 'delivery_exhausted':
      return disableAndKill(step, input.at, 'delivery_exhausted').done();
    case 'gone':
      return disableAndKill(step, input.at, 'gone').done();
    case 'test_result':
      step.set({ lastTest: { at: input.at, ok: input.ok } });
      if (input.ok && state.status !== 'disabled') step.clearStreak();
      return step.done();
    case 'pause':
    case 'resume':
      return manualPauseResume(state, input);
    case 'disable':
      return disableAndKill(step, input.at, input.reason ?? 'manual').done();
    case 'url_changed':
    case 'config_edited':
    case 'tick':
    case 'drain_completed':
    case 'hold_full':
    case 'probe_claim':
      return unchanged(state);
  }
}

export const smengoHealth: PresetHealthRules = {
  apply,

  sendDecision(state, _now, opts) {
    // A test is the seed's way to check a fix, on a paused or a disabled endpoint alike.
    if (opts.isTest) return { kind: 'send' };
    if (state.status === 'disabled') {
      return { kind: 'drop', code: 'endpoint_disabled', endAs: isNewSince(state, opts) ? 'failed' : 'dead' };
    }
    if (state.status === 'paused') {
      // Events arriving during a pause are not queued at all (R-SMENGO-PAUSE); those
      // queued before it wait and go out after resume.
      if (isNewSince(state, opts)) return { kind: 'drop', code: 'endpoint_paused', endAs: 'failed' };
      return { kind: 'defer', code: 'endpoint_paused', retryInMs: PAUSE_RECHECK_MS };
    }
    return { kind: 'send' };
  },

  acceptsNewEvents(state) {
    return state.status === 'active' ? 'queue' : 'skip';
  },

  // Smengo has no failure threshold: exhaustion and 410 are reported on their own.
  untracked: ['consecutiveFailures', 'streakStartedAt'],

  // A success only clears that streak; recovering takes a test or a resume.
  successNeverReported: true,

  nextWakeAt: () => undefined,
};
