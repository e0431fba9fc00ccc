/**
 * Issue 16 (8): the Temporal server's own meter of billable actions. Since 1.22.3 the
 * frontend counts every action it serves in the `action` counter, by `action_type`
 * (grpc_StartWorkflowExecution, command_ScheduleActivityTask, grpc_QueryWorkflow,
 * grpc_SignalWorkflowExecution, message_UpdateWorkflowExecution_Acceptance, ...), the count
 * Temporal's migration guide tells self-hosted users to estimate Cloud actions with. It sees
 * what a history does not hold: queries, and signals and updates sent from outside.
 */
import { fetchMetricsText, sumByLabel } from './prom-text.js';

/** One `action` sample per action type, summed over the other labels. */
export type ActionCounts = Record<string, number>;

/** Parses a Prometheus text exposition for the `action` counter (named `action` or `action_total`). */
export function parseActionCounter(text: string, namespace: string): ActionCounts {
  return sumByLabel(
    text,
    'action',
    'action_type',
    (l) => l.namespace === undefined || l.namespace === namespace,
  );
}

/** The server's `action` counter now, or undefined when its /metrics cannot be read. */
export async function readServerActions(metricsUrl: string | undefined, namespace: string) {
  const text = await fetchMetricsText(metricsUrl);
  return text === undefined ? undefined : parseActionCounter(text, namespace);
}

/**
 * The billable total of a delta. The server counts each marker command on its own and also
 * once per workflow task that has any (`command_BatchMarkers`); Cloud bills local activities
 * by the batch, so the per-marker counts are left out of the total.
 */
export function billableActions(delta: ActionCounts): number {
  let total = 0;
  for (const [type, n] of Object.entries(delta)) {
    if (type.startsWith('command_RecordMarker')) continue;
    total += n;
  }
  return total;
}
