// Issue 20: the worker-process side of HeraldMetricsSinks: prom-client counters.
import type { WorkflowInfo } from '@temporalio/workflow';
import type { InjectedSinks } from '@temporalio/worker';
import { heraldMetrics, type HeraldMetrics } from './metrics.js';
import type { DeliveryRef, HeraldMetricsSinks } from './metrics-sinks.js';

/**
 * Calls remembered (a delivery makes about three): enough for a workflow task to time out and
 * run again many times over at any rate a worker carries, a few MB at most. A call forgotten
 * before its task is repeated is counted twice; so is a task repeated on another worker,
 * whose counters are its own.
 */
const CALLS_REMEMBERED = 30_000;

/**
 * Whether a call is new. A workflow task run again after its first try makes the same calls
 * with the same numbers; one that makes a different call under a number (R-CRASH's repeated
 * first task tells of a lost attempt where the first try told of its outcome) is new.
 */
export function firstTimeCalls(
  remembered = CALLS_REMEMBERED,
): (runId: string, n: number, what: string) => boolean {
  const seen = new Map<string, string>();
  return (runId, n, what) => {
    const key = `${runId}/${n}`;
    if (seen.get(key) === what) return false;
    seen.set(key, what);
    if (seen.size > remembered) seen.delete(seen.keys().next().value!);
    return true;
  };
}

export function metricsSinks(metrics: HeraldMetrics = heraldMetrics): InjectedSinks<HeraldMetricsSinks> {
  const base = (d: DeliveryRef) => ({ kind: d.kind, preset: d.preset, ...metrics.who(d.tenant, d.endpoint) });
  const fresh = firstTimeCalls();
  const once =
    <A extends unknown[]>(count: (...args: A) => void) =>
    (info: WorkflowInfo, n: number, ...args: A) => {
      // The call's own values; the delivery it is about is the run's, the same in every call.
      const what = args.filter((a) => typeof a !== 'object').join('|');
      if (fresh(info.runId, n, what)) count(...args);
    };
  return {
    heraldMetrics: {
      deliveryStarted: { fn: once((d) => metrics.deliveriesStarted.inc(base(d))), callDuringReplay: false },
      attempt: {
        fn: once((d, outcome, reason, latencySeconds) => {
          metrics.attempts.inc({ ...base(d), outcome, ...(reason ? { reason } : {}) });
          if (latencySeconds !== undefined)
            metrics.attemptDuration.observe({ kind: d.kind, preset: d.preset, outcome }, latencySeconds);
        }),
        callDuringReplay: false,
      },
      deliveryEnded: {
        fn: once((d, status) => metrics.deliveriesEnded.inc({ ...base(d), status })),
        callDuringReplay: false,
      },
      endpointTransition: {
        fn: once((preset, endpoint, from, to) =>
          metrics.endpointTransitions.inc({
            preset,
            from,
            to,
            ...(metrics.tenantLabels ? { endpoint } : {}),
          }),
        ),
        callDuringReplay: false,
      },
    },
  };
}
