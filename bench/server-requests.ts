/**
 * Issue 16: the Temporal frontend's `service_requests` counter, by operation: how many calls
 * of each kind Herald made (describes and queries of entity workflows, starts, polls). Counted
 * rather than timed, like the action meter (server-actions.ts), which misses describes: they
 * are not billable, but each is a round trip the server and Herald pay for.
 */
import { counterSamples } from './prom-text.js';

/** Requests the frontend served per operation, for one namespace. */
export type RequestCounts = Record<string, number>;

/** Parses a Prometheus text exposition for the frontend's `service_requests` counter. */
export function parseFrontendRequests(text: string, namespace: string): RequestCounts {
  const out: RequestCounts = {};
  for (const { labels, value } of counterSamples(text, 'service_requests')) {
    if (labels.service_name !== 'frontend' || labels.namespace !== namespace) continue;
    const op = labels.operation ?? '?';
    out[op] = (out[op] ?? 0) + value;
  }
  return out;
}

/** The frontend's request counts now, or undefined when its /metrics cannot be read. */
export async function readFrontendRequests(metricsUrl: string | undefined, namespace: string) {
  if (!metricsUrl) return undefined;
  try {
    const res = await fetch(metricsUrl, { signal: AbortSignal.timeout(5000) });
    return res.ok ? parseFrontendRequests(await res.text(), namespace) : undefined;
  } catch {
    return undefined;
  }
}
