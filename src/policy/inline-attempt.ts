import type { DeliveryPolicy } from './types.js';

/**
 * Issue 16: a delivery's first attempt runs inside its first workflow task (a local activity),
 * so a delivery whose first attempt succeeds costs one workflow task. The task stays open
 * while the attempt runs; the SDK heartbeats a task that outlives 80% of its timeout by
 * completing it and asking for a new one (sdk-core WFT_HEARTBEAT_TIMEOUT_FRACTION), and a
 * worker that dies after such a heartbeat would leave the attempt unmarked in the history.
 * So the task timeout each delivery starts with covers the whole inline attempt, and the
 * workflow only runs the first attempt inline when it fits (inlineFits).
 */
export const WFT_HEARTBEAT_FRACTION = 0.8;
/** What the inline attempt may take beyond the request itself: gates, the endpoint read, the after-read. */
export const INLINE_GRACE_SECONDS = 5;
/** Temporal's default; a delivery never starts with less. */
export const MIN_DELIVERY_TASK_TIMEOUT_SECONDS = 10;
/**
 * Kept well under Railhook's claim timeout (300 s, R-CRASH): a worker that dies during the
 * inline attempt is found by the task timeout, so this is how late a lost first attempt is
 * repeated. Policies with longer attempt timeouts send their first attempt as an activity.
 */
export const MAX_DELIVERY_TASK_TIMEOUT_SECONDS = 60;

/** The inline attempt's start-to-close timeout: the request's own timeout plus the grace. */
export function inlineAttemptSeconds(policy: Pick<DeliveryPolicy, 'timeoutSeconds'>): number {
  return policy.timeoutSeconds + INLINE_GRACE_SECONDS;
}

/** The workflow task timeout a delivery starts with: the inline attempt fits before the heartbeat. */
export function deliveryTaskTimeoutSeconds(policy: Pick<DeliveryPolicy, 'timeoutSeconds'>): number {
  const needed = Math.floor(inlineAttemptSeconds(policy) / WFT_HEARTBEAT_FRACTION) + 1;
  return Math.min(MAX_DELIVERY_TASK_TIMEOUT_SECONDS, Math.max(MIN_DELIVERY_TASK_TIMEOUT_SECONDS, needed));
}

/** Whether the inline attempt ends before the SDK would heartbeat a task of `taskTimeoutMs`. */
export function inlineFits(policy: Pick<DeliveryPolicy, 'timeoutSeconds'>, taskTimeoutMs: number): boolean {
  return inlineAttemptSeconds(policy) * 1000 < WFT_HEARTBEAT_FRACTION * taskTimeoutMs;
}

/**
 * The first workflow task of a run has history length 3 when it runs (started, scheduled,
 * started), plus one event per signal that arrived before it. A first task that timed out
 * or failed adds at least 3 (timed out or failed, scheduled, started): with the signals the
 * run has handled taken off, at 6 or more the first task is a repeat, and the inline attempt
 * of the task before it may have been sent (R-CRASH).
 */
export const FIRST_TASK_REPEATED_AT_HISTORY_LENGTH = 6;
