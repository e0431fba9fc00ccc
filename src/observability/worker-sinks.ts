// Issue 20: the worker-process side of HeraldMetricsSinks: prom-client counters.
import type { InjectedSinks } from '@temporalio/worker';
import { heraldMetrics, type HeraldMetrics } from './metrics.js';
import type { DeliveryRef, HeraldMetricsSinks } from './metrics-sinks.js';

export function metricsSinks(metrics: HeraldMetrics = heraldMetrics): InjectedSinks<HeraldMetricsSinks> {
  const base = (d: DeliveryRef) => ({ kind: d.kind, preset: d.preset, ...metrics.who(d.tenant, d.endpoint) });
  return {
    heraldMetrics: {
      deliveryStarted: { fn: (_info, d) => metrics.deliveriesStarted.inc(base(d)), callDuringReplay: false },
      attempt: {
        fn: (_info, d, outcome, reason, latencySeconds) => {
          metrics.attempts.inc({ ...base(d), outcome, ...(reason ? { reason } : {}) });
          if (latencySeconds !== undefined)
            metrics.attemptDuration.observe({ kind: d.kind, preset: d.preset, outcome }, latencySeconds);
        },
        callDuringReplay: false,
      },
      deliveryEnded: {
        fn: (_info, d, status) => metrics.deliveriesEnded.inc({ ...base(d), status }),
        callDuringReplay: false,
      },
      endpointTransition: {
        fn: (_info, preset, endpoint, from, to) =>
          metrics.endpointTransitions.inc({
            preset,
            from,
            to,
            ...(metrics.tenantLabels ? { endpoint } : {}),
          }),
        callDuringReplay: false,
      },
    },
  };
}
