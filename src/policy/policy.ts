import { PolicyError } from './errors.js';
import { copyPolicy, presetWithOverrides, withMinimumRetryDelays } from './apply-overrides.js';
import { PRESET_NAMES } from './presets.js';
import { baseDelaySeconds, isJittered } from './schedule.js';
import { deliveryPolicySchema, policyOverridesSchema, type PolicyOverrides } from './schema.js';
import type { DeliveryPolicy, Direction, PresetName } from './types.js';

export { PolicyError } from './errors.js';
export * from './types.js';
export * from './schema.js';
export {
  PRESETS,
  PRESET_NAMES,
  INBOUND_FORWARD_POLICY,
  RECOVERY,
  leaseSecondsFor,
  presetsOffering,
  recoveryOf,
} from './presets.js';

function describeIssues(issues: readonly { path: PropertyKey[]; message: string }[]): string {
  return issues
    .map((i) => (i.path.length ? `${i.path.map(String).join('.')}: ${i.message}` : i.message))
    .join('; ');
}

function validated(p: DeliveryPolicy, code: string): DeliveryPolicy {
  const r = deliveryPolicySchema.safeParse(p);
  if (!r.success) throw new PolicyError(code, describeIssues(r.error.issues));
  return r.data;
}

/**
 * The effective policy for an endpoint: the preset for that direction plus the
 * endpoint's R-RH-CUSTOM overrides. Only Railhook defines an inbound forward
 * schedule; for the other presets `inbound` keeps their outbound rules.
 * Overrides are accepted for every preset; which presets expose them is the
 * API's choice. A custom schedule longer than the lifetime is allowed: the
 * lifetime simply ends it (R-RH-LIFETIME), only the defaults are checked at
 * start-up.
 */
export function resolvePolicy(
  preset: PresetName,
  overrides?: PolicyOverrides,
  direction: Direction = 'outbound',
): DeliveryPolicy {
  if (!PRESET_NAMES.includes(preset))
    throw new PolicyError('unknown_preset', `unknown preset "${String(preset)}"`);
  if (overrides === undefined) return presetWithOverrides(preset, undefined, direction);

  const r = policyOverridesSchema.safeParse(withMinimumRetryDelays(overrides));
  if (!r.success) {
    const grammarIssue = r.error.issues.find((i) => i.path[0] === 'retryableStatuses' && i.code === 'custom');
    throw grammarIssue
      ? new PolicyError('invalid_retryable_statuses', grammarIssue.message)
      : new PolicyError('invalid_policy_overrides', describeIssues(r.error.issues));
  }
  const p = presetWithOverrides(preset, r.data, direction);
  return validated(p, 'invalid_policy_overrides');
}

/**
 * Longest time the schedule alone can take from creation to the end of the
 * last attempt: every delay at maximum jitter (and at least any post-429/
 * timeout floor), plus every attempt running to its timeout. Retry-After is
 * left out on purpose: it is the receiver's choice, bounded by its cap, and the
 * lifetime is what stops it.
 */
export function worstCaseScheduleSeconds(p: DeliveryPolicy): number {
  let total = p.maxAttempts * p.timeoutSeconds;
  for (let k = 1; k < p.maxAttempts; k++) {
    const factor = isJittered(p, k) ? p.jitter.max : 1;
    total += Math.max(baseDelaySeconds(p, k) * factor, p.minDelayAfter429OrTimeoutSeconds);
  }
  return total;
}

/** R-RH-LIFETIME start-up check: the worker refuses to run a schedule its lifetime would cut short. */
export function assertScheduleFitsLifetime(p: DeliveryPolicy): void {
  if (p.lifetimeSeconds === null) return;
  const worst = worstCaseScheduleSeconds(p);
  if (worst > p.lifetimeSeconds) {
    const h = (s: number) => `${(s / 3600).toFixed(2)}h`;
    throw new PolicyError(
      'schedule_exceeds_lifetime',
      `${p.preset} ${p.direction} schedule takes up to ${h(worst)} at maximum jitter (${p.maxAttempts} attempts of ` +
        `${p.timeoutSeconds}s), more than its ${h(p.lifetimeSeconds)} lifetime`,
    );
  }
}

export interface OperatorSettings {
  /** Railhook's WEBHOOK_RETRY_AFTER_MAX_SECONDS: cap on the header; 0 = ignore the header. */
  retryAfterMaxSeconds?: number;
  /** DELIVERY_ESCALATION_HARD_CAP_HOURS / FORWARD_ESCALATION_HARD_CAP_HOURS; null = no cap. */
  lifetimeHours?: number | null;
  /** WEBHOOK_CLAIM_TIMEOUT_SECONDS: the R-CRASH lease. */
  claimTimeoutSeconds?: number;
}

/**
 * Applies the worker's environment knobs to a policy. Kept separate from
 * resolvePolicy because these belong to the operator, not to a tenant's
 * endpoint. Throws PolicyError('invalid_operator_settings') on nonsense values.
 */
export function applyOperatorSettings(p: DeliveryPolicy, s: OperatorSettings): DeliveryPolicy {
  const out = copyPolicy(p);
  if (s.retryAfterMaxSeconds !== undefined) {
    out.retryAfter.ignore = s.retryAfterMaxSeconds === 0;
    if (s.retryAfterMaxSeconds !== 0) out.retryAfter.capSeconds = s.retryAfterMaxSeconds;
  }
  if (s.lifetimeHours !== undefined) {
    out.lifetimeSeconds = s.lifetimeHours === null ? null : Math.round(s.lifetimeHours * 3600);
  }
  if (s.claimTimeoutSeconds !== undefined) out.leaseSeconds = s.claimTimeoutSeconds;
  return validated(out, 'invalid_operator_settings');
}
