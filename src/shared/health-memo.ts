import { sameJson } from '../health/reporting.js';
import type { HealthState } from '../health/types.js';

/**
 * Issue 16: the endpoint workflow keeps its health in its memo as well, so a delivery that
 * judges its outcome (issue 14.4) can read it with DescribeWorkflowExecution instead of a
 * query. A query is a billable action on Temporal Cloud and a task for a worker (matching,
 * a workflow-task slot, an activation); a describe is neither, and a delivery made about
 * one query of its own. Only the health goes there: a memo is not the place for secrets.
 */
export const HEALTH_MEMO_KEY = 'heraldHealth';

/** Whether the memo the workflow last wrote still says `health`. */
export function healthMemoCurrent(memo: Record<string, unknown> | undefined, health: HealthState): boolean {
  const kept = memo?.[HEALTH_MEMO_KEY];
  return kept !== undefined && sameJson(kept, health);
}

/** What a describe of the endpoint workflow tells, as far as a delivery needs it. */
export interface EndpointDescription {
  running: boolean;
  memo?: Record<string, unknown>;
  /** A workflow task scheduled or running: events the memo may not show yet. */
  pendingTask: boolean;
}

/**
 * The endpoint's health as of the describe, or undefined when only a query can tell it.
 * A memo is written by the workflow task that applies a report, so it lags exactly the
 * events no completed task has handled yet; while there are such events (a signal just
 * accepted, an update) the workflow has a pending task. No pending task: the memo has seen
 * every report the server accepted before the describe, which is what a query answers too.
 */
export function healthFromDescription(d: EndpointDescription): HealthState | undefined {
  if (!d.running || d.pendingTask) return undefined;
  const kept = d.memo?.[HEALTH_MEMO_KEY];
  if (kept === undefined || kept === null || typeof kept !== 'object') return undefined;
  return kept as HealthState;
}
