// Issue 20: Herald's own metrics, one prom-client registry per process. Labels are bounded
// sets (presets, outcome classes, Herald's own codes, HTTP answer codes); tenant and endpoint
// are added only with HERALD_METRICS_TENANT_LABELS, since each would make a series per
// customer in every counter.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Where a delivery metric came from: an outbound delivery or an inbound forward. */
export type DeliveryKind = 'delivery' | 'forward';

export interface DeliveryLabels {
  kind: DeliveryKind;
  preset: string;
  tenant?: string;
  endpoint?: string;
}

const LATENCY_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export class HeraldMetrics {
  readonly registry = new Registry();
  /** Set once at start-up (configureMetrics): labels are part of every series' identity. */
  tenantLabels = false;

  readonly deliveriesStarted = new Counter({
    name: 'herald_deliveries_started_total',
    help: 'Deliveries created (one event to one endpoint), by preset',
    labelNames: ['kind', 'preset', 'tenant', 'endpoint'] as const,
    registers: [this.registry],
  });
  readonly attempts = new Counter({
    name: 'herald_attempts_total',
    help: 'Send turns by outcome class: success, retry, dead_letter (the attempt that ended it), refused (nothing sent, policy ended it), deferred (held back, no attempt spent; reason = code), worker_error',
    labelNames: ['kind', 'preset', 'outcome', 'reason', 'tenant', 'endpoint'] as const,
    registers: [this.registry],
  });
  readonly attemptDuration = new Histogram({
    name: 'herald_attempt_duration_seconds',
    help: 'Time of one HTTP attempt, connect to response (attempts that sent a request)',
    labelNames: ['kind', 'preset', 'outcome'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly deliveriesEnded = new Counter({
    name: 'herald_deliveries_ended_total',
    help: 'Deliveries reaching a final status (succeeded, failed, exhausted, dead); a replayed one counts again',
    labelNames: ['kind', 'preset', 'status', 'tenant', 'endpoint'] as const,
    registers: [this.registry],
  });
  readonly endpointTransitions = new Counter({
    name: 'herald_endpoint_transitions_total',
    help: 'Endpoint health status changes (to = degraded, paused, suspended, disabled, or active when resumed)',
    labelNames: ['preset', 'from', 'to', 'endpoint'] as const,
    registers: [this.registry],
  });
  readonly apiRequests = new Counter({
    name: 'herald_api_requests_total',
    help: 'Publish (POST /v1/events) and ingest (POST /in/{id}) requests, by answer code',
    labelNames: ['route', 'code'] as const,
    registers: [this.registry],
  });
  readonly apiDuration = new Histogram({
    name: 'herald_api_request_duration_seconds',
    help: 'Latency of publish and ingest requests, by answer code',
    labelNames: ['route', 'code'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly deliveryStartsWaiting = new Gauge({
    name: 'herald_delivery_starts_waiting',
    help: 'Delivery starts waiting in this API process for a place (HERALD_STARTS_IN_FLIGHT), taken in turn by endpoint',
    registers: [this.registry],
  });
  readonly transformFailures = new Counter({
    name: 'herald_transform_failures_total',
    help: 'Transformations that did not produce a request: failed (the expression), busy (no free evaluator)',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
  readonly transformPoolWait = new Histogram({
    name: 'herald_transform_pool_wait_seconds',
    help: 'Time a transformation waited for a free evaluator process',
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 1.5],
    registers: [this.registry],
  });
  readonly notices = new Counter({
    name: 'herald_notices_total',
    help: 'Health notices by channel (email, webhook) and result (sent, failed)',
    labelNames: ['channel', 'result'] as const,
    registers: [this.registry],
  });

  constructor() {
    // Process CPU, memory, event loop lag: read on scrape only.
    collectDefaultMetrics({ register: this.registry });
  }

  /** The opt-in tenant and endpoint labels, or none. */
  who(tenant: string | undefined, endpoint: string | undefined): { tenant?: string; endpoint?: string } {
    if (!this.tenantLabels) return {};
    return { ...(tenant ? { tenant } : {}), ...(endpoint ? { endpoint } : {}) };
  }
}

/** The process's metrics: the worker, the API and `npm start` each scrape one registry. */
export const heraldMetrics = new HeraldMetrics();

export function configureMetrics(config: { HERALD_METRICS_TENANT_LABELS: boolean }, metrics = heraldMetrics) {
  metrics.tenantLabels = config.HERALD_METRICS_TENANT_LABELS;
}
