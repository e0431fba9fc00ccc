import { TokenBuckets } from './rate-limit.js';

/**
 * Issue 16 (5), R-SMENGO-FAIR: which deliveries the API asks Temporal to start eagerly. An
 * eager start hands the first workflow task back with the start's response, so it never
 * waits in matching, where tasks are handed out round-robin by endpoint. Unbounded, a burst
 * to one endpoint would take the worker's free slots that way ahead of every other
 * endpoint's queued first attempts. Each endpoint gets `perSecond` eager starts a second
 * (and as many at once), which a steady endpoint never exceeds; a burst's excess is started
 * plainly and queues behind itself in matching. `undefined` (no eager start) at 0.
 */
export function eagerAllowance(
  perSecond: number,
  now: () => number = Date.now,
): ((endpointId: string) => boolean) | undefined {
  if (!(perSecond > 0)) return undefined;
  const buckets = new TokenBuckets({ ratePerSecond: perSecond, burst: Math.max(1, Math.ceil(perSecond)) });
  return (endpointId) => buckets.take(endpointId, now()).allowed;
}
