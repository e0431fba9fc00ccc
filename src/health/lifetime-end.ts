/**
 * Issue 14.5: the delivery workflow's patch id for lifetimeEndCounts. A run recorded before
 * it reported every lifetime end to the endpoint, so such a run replays that way.
 */
export const LIFETIME_END_PATCH = 'lifetime-end-counts-only-failures';

/**
 * The fields of an attempt-log row (shared/delivery-types AttemptRecord) this rule reads;
 * declared here so the health rules import nothing outside src/health.
 */
export interface LogRow {
  kind: 'attempt' | 'refused' | 'deferral' | 'lease_expired';
  round: number;
  code?: string;
}

/** Sends that failed inside Herald (issue 13.5): never the receiver's fault. */
const HERALD_OWN_CODES: ReadonlySet<string> = new Set(['worker_error', 'lease_expired']);

/**
 * Issue 14.5: whether a delivery whose lifetime (R-RH-LIFETIME, 96 h on `standard`) just
 * ran out counts as an exhausted delivery for endpoint health (R-SMENGO-HEALTH disables
 * on "the first delivery that exhausts all its attempts").
 *
 * It counts when the receiver ran it out: the latest attempt or deferral of this round is
 * a failed attempt, so the schedule was still running against failures. It does not when
 * the delivery was held back at the end: never attempted (only deferred: a manual pause,
 * an inactive subscription) or deferred since its last failure. Such an end says nothing
 * about the receiver, and counting it would let a pause longer than the lifetime disable
 * the endpoint it paused, killing every other pending delivery.
 *
 * Pure, over the attempt log the delivery already keeps (and carries across
 * continue-as-new), so no new workflow state is needed.
 */
export function lifetimeEndCounts(attempts: readonly LogRow[], round: number): boolean {
  for (let i = attempts.length - 1; i >= 0; i--) {
    const row = attempts[i]!;
    // Earlier rounds ended on their own; a replay's round stands alone.
    if (row.round !== round) return false;
    if (row.kind === 'deferral') return false;
    if (row.kind !== 'attempt' || row.code === undefined || HERALD_OWN_CODES.has(row.code)) continue;
    return true;
  }
  return false;
}
