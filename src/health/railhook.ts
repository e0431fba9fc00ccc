import { PAUSE_RECHECK_MS, Step, isNewSince, unchanged } from './common.js';
import { disableAndKill, manualPauseResume } from './smengo.js';
import {
  MINUTE_MS,
  SECOND_MS,
  type CircuitState,
  type HealthInput,
  type HealthState,
  type PresetHealthRules,
} from './types.js';

// Railhook's seed names the breaker but none of its numbers: all four are (assumed).
/** Consecutive failed attempts (across deliveries) that open the breaker. */
export const RH_CIRCUIT_THRESHOLD = 10;
/** How long the breaker stays open before one probe may go through. */
export const RH_CIRCUIT_OPEN_MS = 60 * SECOND_MS;
/** A probe's claim outlives its attempt: the 300 s claim timeout plus the 60 s timeout ceiling. */
export const RH_PROBE_LEASE_MS = 6 * MINUTE_MS;
/** How often deliveries waiting on a half-open breaker look again. */
export const RH_HALF_OPEN_RECHECK_MS = 10 * SECOND_MS;

export type CircuitPhase = 'closed' | 'open' | 'half_open';

const CLOSED: CircuitState = { failures: 0, trips: 0 };

export function circuitPhase(circuit: CircuitState | undefined, now: number): CircuitPhase {
  if (circuit?.openUntil === undefined) return 'closed';
  return now < circuit.openUntil ? 'open' : 'half_open';
}

function validProbe(circuit: CircuitState, now: number) {
  return circuit.probe !== undefined && now < circuit.probe.until ? circuit.probe : undefined;
}

function onFailure(circuit: CircuitState, at: number): CircuitState {
  const open = (): CircuitState => ({
    failures: circuit.failures,
    openUntil: at + RH_CIRCUIT_OPEN_MS,
    trips: circuit.trips + 1,
  });
  switch (circuitPhase(circuit, at)) {
    case 'closed': {
      const failures = circuit.failures + 1;
      return failures >= RH_CIRCUIT_THRESHOLD ? { ...open(), failures } : { ...circuit, failures };
    }
    // An attempt that was already in flight when the breaker opened: it tells nothing new.
    case 'open':
      return circuit;
    // The probe (or anything else once open time is over) failed: open again.
    case 'half_open':
      return open();
  }
}

function apply(state: HealthState, input: HealthInput) {
  const circuit = state.circuit ?? CLOSED;
  const step = new Step(state);
  switch (input.kind) {
    case 'attempt_failed':
      // No status changes on Railhook: the breaker is a deferral only (R-RH-DEFER).
      return step
        .countFailure(input.at)
        .set({ circuit: onFailure(circuit, input.at) })
        .done();
    case 'attempt_succeeded':
      return step
        .clearStreak()
        .set({ circuit: { failures: 0, trips: circuit.trips } })
        .done();
    case 'test_result':
      step.set({ lastTest: { at: input.at, ok: input.ok } });
      // A 2xx from a test is as good a probe as any (assumed).
      if (input.ok) step.clearStreak().set({ circuit: { failures: 0, trips: circuit.trips } });
      return step.done();
    case 'probe_claim': {
      if (circuitPhase(circuit, input.at) !== 'half_open' || validProbe(circuit, input.at))
        return unchanged(state);
      const probe = { deliveryId: input.deliveryId, until: input.at + RH_PROBE_LEASE_MS };
      return step.set({ circuit: { ...circuit, probe } }).done();
    }
    case 'pause':
    case 'resume':
      return manualPauseResume(state, input);
    case 'disable':
      return disableAndKill(step, input.at, input.reason ?? 'manual').done();
    // Exhaustion and 410 are per-delivery outcomes on Railhook (its dead-letter list).
    case 'delivery_exhausted':
    case 'gone':
    case 'url_changed':
    case 'config_edited':
    case 'tick':
    case 'drain_completed':
    case 'hold_full':
      return unchanged(state);
  }
}

export const railhookHealth: PresetHealthRules = {
  apply,

  sendDecision(state, now, opts) {
    if (opts.isTest) return { kind: 'send' };
    if (state.status === 'disabled') {
      return { kind: 'drop', code: 'endpoint_disabled', endAs: isNewSince(state, opts) ? 'failed' : 'dead' };
    }
    // Railhook's pause is assumed to be a deferral like its others: nothing is skipped.
    if (state.status === 'paused')
      return { kind: 'defer', code: 'endpoint_paused', retryInMs: PAUSE_RECHECK_MS };
    const circuit = state.circuit ?? CLOSED;
    switch (circuitPhase(circuit, now)) {
      case 'closed':
        return { kind: 'send' };
      case 'open':
        return { kind: 'defer', code: 'circuit_open', retryInMs: (circuit.openUntil ?? now) - now };
      case 'half_open': {
        // A caller that cannot claim degrades to "whoever asks may probe".
        if (opts.deliveryId === undefined) return { kind: 'send' };
        const probe = validProbe(circuit, now);
        if (probe?.deliveryId === opts.deliveryId) return { kind: 'send' };
        return {
          kind: 'defer',
          code: 'circuit_open',
          retryInMs: RH_HALF_OPEN_RECHECK_MS,
          ...(probe ? {} : { claimProbe: true }),
        };
      }
    }
  },

  acceptsNewEvents(state) {
    return state.status === 'disabled' ? 'skip' : 'queue';
  },

  // The breaker keeps its own count (circuit.failures); the endpoint-wide one is only shown.
  untracked: ['consecutiveFailures', 'streakStartedAt'],

  // A success resets the breaker's count (circuit.failures), which a rule reads.
  successNeverReported: false,

  nextWakeAt: () => undefined,
};
