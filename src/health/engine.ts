import { birdHealth } from './bird.js';
import { dongtienAdmission, dongtienHealth } from './dongtien.js';
import { railhookHealth } from './railhook.js';
import { smengoHealth } from './smengo.js';
import type {
  Admission,
  HealthInput,
  HealthRulesTable,
  HealthState,
  HealthTransition,
  PresetName,
  SendDecision,
  SendOptions,
} from './types.js';

export { initialHealth } from './common.js';

/** One engine, rules per preset (SPEC §3 "endpoint health"); `standard` is "as smengo". */
export const HEALTH_RULES: HealthRulesTable = Object.freeze({
  standard: smengoHealth,
  smengo: smengoHealth,
  railhook: railhookHealth,
  bird: birdHealth,
  dongtien: dongtienHealth,
});

export function applyHealth(preset: PresetName, state: HealthState, input: HealthInput): HealthTransition {
  const t = HEALTH_RULES[preset].apply(state, input);
  for (const e of t.effects) {
    const end =
      e.kind === 'kill_pending'
        ? ({ endAs: 'dead', code: e.code } as const)
        : e.kind === 'dead_letter_held'
          ? ({ endAs: 'exhausted', code: e.code } as const)
          : e.kind === 'fail_pending'
            ? ({ endAs: 'failed', code: e.code } as const)
            : undefined;
    if (end) t.state = { ...t.state, endedBefore: { at: input.at, ...end } };
  }
  return t;
}

export function sendDecision(
  preset: PresetName,
  state: HealthState,
  now: number,
  opts: SendOptions = {},
): SendDecision {
  const cut = state.endedBefore;
  if (!opts.isTest && cut && opts.createdAt !== undefined && opts.createdAt < cut.at) {
    return {
      kind: 'drop',
      code: cut.code === 'endpoint_paused' ? 'endpoint_paused' : 'endpoint_disabled',
      endAs: cut.endAs,
    };
  }
  return HEALTH_RULES[preset].sendDecision(state, now, opts);
}

/**
 * Whether a new event should be queued for this endpoint at all: Smengo pause and
 * disabled endpoints skip it, Bird paused skips it (never attempted), Dong Tien holds it.
 */
export function acceptsNewEvents(preset: PresetName, state: HealthState): Admission {
  return HEALTH_RULES[preset].acceptsNewEvents(state);
}

/**
 * acceptsNewEvents plus Dong Tien's hold limit, for the caller that knows how many events
 * the endpoint holds: 'dead_letter' means create the delivery straight as a dead letter
 * and report `hold_full` to the endpoint (issue 14.10). `holdLimit` defaults to the seed's.
 */
export function admitNewEvent(
  preset: PresetName,
  state: HealthState,
  heldCount: number,
  holdLimit?: number,
): Admission | 'dead_letter' {
  return preset === 'dongtien'
    ? dongtienAdmission(state, heldCount, holdLimit)
    : acceptsNewEvents(preset, state);
}

/** When the endpoint workflow must wake to send a `tick`; undefined when only inputs change the state. */
export function nextWakeAt(preset: PresetName, state: HealthState): number | undefined {
  return HEALTH_RULES[preset].nextWakeAt(state);
}

/**
 * Applies inputs in order: for the endpoint workflow draining a batch of buffered
 * signals in one go, with the effects in the order they arose.
 */
export function foldHealth(
  preset: PresetName,
  inputs: readonly HealthInput[],
  from: HealthState,
): HealthTransition {
  let state = from;
  const effects: HealthTransition['effects'] = [];
  for (const input of inputs) {
    const next = applyHealth(preset, state, input);
    state = next.state;
    effects.push(...next.effects);
  }
  return { state, effects };
}
