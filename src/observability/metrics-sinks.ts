// Issue 20: what the workflow interceptor tells the worker process. Sinks are called after
// the workflow task completes and never during replay, so a workflow evicted from the cache
// and replayed counts nothing twice, and nothing here reaches the workflow's history. Pure:
// the workflow bundle imports it.
import type { Sinks } from '@temporalio/workflow';
import type { AttemptClass } from './attempt-outcome.js';

export interface DeliveryRef {
  kind: 'delivery' | 'forward';
  preset: string;
  tenant: string;
  endpoint: string;
}

/**
 * Each call's first argument, `n`, numbers it within its run, in the order the run makes its
 * calls; replay makes the same calls with the same numbers. "Never during replay" does not
 * cover a workflow task that the server had run again (its first try timed out, or its
 * completion was lost): that run is not a replay, and makes its calls a second time. The
 * worker drops a call whose number it has already counted for the run (worker-sinks.ts).
 */
export interface HeraldMetricsSinks extends Sinks {
  heraldMetrics: {
    deliveryStarted(n: number, d: DeliveryRef): void;
    attempt(
      n: number,
      d: DeliveryRef,
      outcome: AttemptClass,
      reason: string | undefined,
      latencySeconds: number | undefined,
    ): void;
    deliveryEnded(n: number, d: DeliveryRef, status: string): void;
    endpointTransition(n: number, preset: string, endpoint: string, from: string, to: string): void;
  };
}

type MetricCalls = HeraldMetricsSinks['heraldMetrics'];
type Unnumbered<F> = F extends (n: number, ...rest: infer A) => void ? (...args: A) => void : never;

/** The sinks as a workflow calls them: numbered in call order, one counter per run. */
export type NumberedMetrics = { [K in keyof MetricCalls]: Unnumbered<MetricCalls[K]> };

export function numberedMetrics(sinks: MetricCalls): NumberedMetrics {
  let n = 0;
  return {
    deliveryStarted: (...a) => sinks.deliveryStarted(++n, ...a),
    attempt: (...a) => sinks.attempt(++n, ...a),
    deliveryEnded: (...a) => sinks.deliveryEnded(++n, ...a),
    endpointTransition: (...a) => sinks.endpointTransition(++n, ...a),
  };
}
