import type { Config } from '../config.js';
import {
  INBOUND_FORWARD_POLICY,
  PRESETS,
  applyOperatorSettings,
  assertScheduleFitsLifetime,
  resolvePolicy,
  type DeliveryPolicy,
  type Direction,
  type OperatorSettings,
  type PolicyOverrides,
  type PresetName,
} from '../policy/policy.js';

export type PolicyResolver = (preset: PresetName, overrides?: PolicyOverrides, direction?: Direction) => DeliveryPolicy;

/** Railhook's environment knobs belong to the operator and apply to railhook policies only. */
function operatorSettings(config: Config, direction: Direction): OperatorSettings {
  const hours =
    direction === 'inbound' ? config.FORWARD_ESCALATION_HARD_CAP_HOURS : config.DELIVERY_ESCALATION_HARD_CAP_HOURS;
  return {
    retryAfterMaxSeconds: config.WEBHOOK_RETRY_AFTER_MAX_SECONDS,
    lifetimeHours: hours,
    claimTimeoutSeconds: config.WEBHOOK_CLAIM_TIMEOUT_SECONDS,
  };
}

export function createPolicyResolver(config: Config): PolicyResolver {
  return (preset, overrides, direction = 'outbound') => {
    const p = resolvePolicy(preset, overrides, direction);
    return preset === 'railhook' ? applyOperatorSettings(p, operatorSettings(config, direction)) : p;
  };
}

/**
 * R-RH-LIFETIME: the worker refuses to start when a preset's default schedule at maximum
 * jitter (plus timeouts) cannot finish inside its lifetime under this configuration.
 */
export function assertPresetsFit(config: Config): void {
  const resolve = createPolicyResolver(config);
  for (const preset of Object.keys(PRESETS) as PresetName[]) assertScheduleFitsLifetime(resolve(preset));
  assertScheduleFitsLifetime(resolve(INBOUND_FORWARD_POLICY.preset, undefined, 'inbound'));
}
