import { INBOUND_POLICIES, PRESETS, leaseSecondsFor } from './presets.js';
import type { DeliveryPolicy, Direction, PresetName } from './types.js';

/** R-RH-CUSTOM fields, as `PolicyOverrides` after validation (no zod here: see below). */
export interface Overrides {
  maxAttempts?: number;
  retryDelays?: number[];
  timeoutSeconds?: number;
  retryableStatuses?: string;
}

/**
 * Shortest retry delay a policy may have (issue 13.6). With 0, a 20-attempt policy would
 * turn one publish into a burst of 20 requests at a third party within a second.
 */
export const MIN_RETRY_DELAY_SECONDS = 1;

/**
 * Overrides saved before the minimum existed (an endpoint's `retryDelays: [0]`) are raised
 * to it rather than refused: refusing would make every publish to that endpoint fail,
 * while the API already refuses such a delay in anything new (policyOverridesSchema).
 */
export function withMinimumRetryDelays<T extends Overrides | undefined>(overrides: T): T {
  const delays = overrides?.retryDelays;
  if (!Array.isArray(delays)) return overrides;
  const raise = (d: unknown) =>
    Number.isInteger(d) && (d as number) >= 0 && (d as number) < MIN_RETRY_DELAY_SECONDS ? MIN_RETRY_DELAY_SECONDS : d;
  return { ...overrides, retryDelays: delays.map(raise) };
}

export function copyPolicy(p: DeliveryPolicy): DeliveryPolicy {
  return {
    ...p,
    retryDelaysSeconds: [...p.retryDelaysSeconds],
    jitter: { ...p.jitter },
    retryAfter: { ...p.retryAfter },
  };
}

/**
 * A preset with overrides that were validated when they were saved. Workflows use this
 * instead of `resolvePolicy`: the workflow sandbox evaluates every imported module once per
 * workflow, and zod's schemas made that the largest CPU cost of a delivery (BENCHMARKS.md).
 */
export function presetWithOverrides(
  preset: PresetName,
  overrides?: Overrides,
  direction: Direction = 'outbound',
): DeliveryPolicy {
  const base = (direction === 'inbound' ? INBOUND_POLICIES[preset] : undefined) ?? PRESETS[preset];
  const p = copyPolicy(base);
  p.direction = direction;
  if (!overrides) return p;
  if (overrides.maxAttempts !== undefined) p.maxAttempts = overrides.maxAttempts;
  if (overrides.retryDelays !== undefined) p.retryDelaysSeconds = [...overrides.retryDelays];
  if (overrides.timeoutSeconds !== undefined) {
    p.timeoutSeconds = overrides.timeoutSeconds;
    p.leaseSeconds = leaseSecondsFor(p.preset, overrides.timeoutSeconds);
  }
  if (overrides.retryableStatuses !== undefined) p.retryableStatuses = overrides.retryableStatuses.trim();
  return p;
}
