// Issue 20: what the workflow interceptor tells the worker process. Sinks are called after
// the workflow task completes and never during replay, so a workflow evicted from the cache
// and replayed counts nothing twice, and nothing here reaches the workflow's history.
import type { Sinks } from '@temporalio/workflow';
import type { AttemptClass } from './attempt-outcome.js';

export interface DeliveryRef {
  kind: 'delivery' | 'forward';
  preset: string;
  tenant: string;
  endpoint: string;
}

export interface HeraldMetricsSinks extends Sinks {
  heraldMetrics: {
    deliveryStarted(d: DeliveryRef): void;
    attempt(
      d: DeliveryRef,
      outcome: AttemptClass,
      reason: string | undefined,
      latencySeconds: number | undefined,
    ): void;
    deliveryEnded(d: DeliveryRef, status: string): void;
    endpointTransition(preset: string, endpoint: string, from: string, to: string): void;
  };
}
