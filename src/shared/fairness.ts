import type { Priority } from '@temporalio/common';

/**
 * R-SMENGO-FAIR: every task of a delivery (its workflow tasks and its sends) carries its
 * endpoint as the fairness key, so Temporal's matching hands out tasks round-robin across
 * endpoints instead of first-in-first-out: a burst to one endpoint queues behind itself,
 * not in front of everyone else. Needs a server with fairness on (the embedded dev server
 * enables it; a cluster needs `matching.enableFairness`).
 */
export function deliveryPriority(endpointId: string): Priority {
  // Fairness keys are short strings; endpoint ids are, one-off target keys may not be.
  return { fairnessKey: endpointId.slice(0, 64) };
}
