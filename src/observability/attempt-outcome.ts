// Issue 20: the one place that reads the send activity's result for metrics, so a change
// of SendResult's shape is fixed here only. Pure: it runs inside the workflow sandbox.
import type { DeliveryStatus, SendResult } from '../shared/delivery-types.js';

export type AttemptClass = 'success' | 'retry' | 'dead_letter' | 'refused' | 'deferred' | 'worker_error';

export interface ClassifiedAttempt {
  /** Final, or `failed` when the delivery's next status decides (retry or dead letter). */
  outcome: AttemptClass | 'failed';
  /** The deferral's or refusal's code: Herald's own, a bounded set. */
  reason?: string;
  /** Seconds the request took, when a request left this machine. */
  latencySeconds?: number;
}

/** What one send turn was, from its result alone. */
export function classifyAttempt(result: SendResult): ClassifiedAttempt {
  if (result.deferral) return { outcome: 'deferred', reason: result.deferral.code };
  if (result.drop) return { outcome: 'refused', reason: result.drop.code };
  const latencySeconds = result.notSent ? undefined : result.latencyMs / 1000;
  if (result.code === undefined) return { outcome: 'success', latencySeconds };
  return { outcome: 'failed', latencySeconds };
}

/**
 * A failed attempt's class, once the delivery has moved on from `processing`: waiting for
 * another attempt is a retry, a final status is the dead letter (or, for `failed`, a
 * refusal: R-STATUS's "never attempted"). Undefined while still processing.
 */
export function failedAttemptClass(statusAfter: DeliveryStatus | undefined): AttemptClass | undefined {
  switch (statusAfter) {
    case 'pending':
      return 'retry';
    case 'exhausted':
    case 'dead':
      return 'dead_letter';
    case 'failed':
      return 'refused';
    case 'succeeded':
      return 'success';
    default:
      return undefined;
  }
}
