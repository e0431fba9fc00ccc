/**
 * Issue 16: the Temporal frontend's `service_requests` counter, by operation: how many calls
 * of each kind Herald made (describes and queries of entity workflows, starts, polls). Counted
 * rather than timed, like the action meter (server-actions.ts), which misses describes: they
 * are not billable, but each is a round trip the server and Herald pay for.
 */
import { fetchMetricsText, sumByLabel } from './prom-text.js';

/** Requests the frontend served per operation, for one namespace. */
export type RequestCounts = Record<string, number>;

/** Parses a Prometheus text exposition for the frontend's `service_requests` counter. */
export function parseFrontendRequests(text: string, namespace: string): RequestCounts {
  return sumByLabel(
    text,
    'service_requests',
    'operation',
    (l) => l.service_name === 'frontend' && l.namespace === namespace,
  );
}

/** The frontend's request counts now, or undefined when its /metrics cannot be read. */
export async function readFrontendRequests(metricsUrl: string | undefined, namespace: string) {
  const text = await fetchMetricsText(metricsUrl);
  return text === undefined ? undefined : parseFrontendRequests(text, namespace);
}
