import type { EndpointDescription } from './health-memo.js';

/**
 * Issue 16: a delivery reads its endpoint (URL, secrets, health, flow options) through a
 * one-second cache, and the API reads every endpoint of a tenant to fan a publish out; an
 * expired entry used to cost a query each: a billable action and a worker task per
 * endpoint per worker (and per API process) per second, whether anything had changed or
 * not. The endpoint workflow counts the changes to what its snapshot and view queries
 * answer and keeps the count in its memo; a describe (neither billable nor a worker task)
 * then tells whether the answer held is still the endpoint's. The count is all the memo
 * holds: no secret goes there.
 */
export const SNAPSHOT_MEMO_KEY = 'heraldSnapshotRev';

/** What the snapshot query stamps on its answer: the run and the revision it was read at. */
export interface SnapshotStamp {
  runId: string;
  rev: number;
  /** The first moment a signing secret in the answer expires: the answer changes then by itself. */
  validUntil?: number;
}

/** Whether the memo the workflow last wrote already carries `rev`. */
function snapshotMemoCurrent(memo: Record<string, unknown> | undefined, rev: number): boolean {
  return memo?.[SNAPSHOT_MEMO_KEY] === rev;
}

/**
 * Whether the snapshot stamped `stamp` is still what a query would answer at `now`. The
 * memo is written by the workflow task that makes the change, so it lags only events no
 * completed task has handled (then a task is pending); another run started afresh.
 */
export function snapshotStillCurrent(
  d: EndpointDescription & { runId: string },
  stamp: SnapshotStamp | undefined,
  now: number,
): boolean {
  if (!stamp || !d.running || d.pendingTask || d.runId !== stamp.runId) return false;
  if (stamp.validUntil !== undefined && stamp.validUntil <= now) return false;
  return snapshotMemoCurrent(d.memo, stamp.rev);
}

/** The next moment one of these secrets stops signing, if any will. */
export function firstExpiry(secrets: ReadonlyArray<{ expiresAt?: number }>): number | undefined {
  let first: number | undefined;
  for (const s of secrets)
    if (s.expiresAt !== undefined && (first === undefined || s.expiresAt < first)) first = s.expiresAt;
  return first;
}

/** An answer as callers outside Herald's reads see it: the stamp is bookkeeping. */
export function withoutStamp<T extends { stamp?: SnapshotStamp }>(v: T): Omit<T, 'stamp'> {
  if (v.stamp === undefined) return v;
  const { stamp: _stamp, ...rest } = v;
  return rest;
}

/**
 * The workflow's side: counts the changes to what its read queries answer. `note` is
 * called by every handler that changes the state those answers show; `stamp` answers a
 * query with the revision only while the content is the one it counted.
 */
export class ReadRevision {
  private revision = 0;
  private seen: string | undefined;

  /** Notes the content as it stands; true when the memo does not carry the revision yet. */
  note(content: string, memo: Record<string, unknown> | undefined): boolean {
    if (this.seen !== undefined && content !== this.seen) this.revision++;
    this.seen = content;
    return !snapshotMemoCurrent(memo, this.revision);
  }

  get rev(): number {
    return this.revision;
  }

  /** Unstamped when the content changed since the last note: the reader then asks again next time. */
  stamp(content: string, runId: string, validUntil?: number): { stamp?: SnapshotStamp } {
    if (content !== this.seen) return {};
    return { stamp: { runId, rev: this.revision, ...(validUntil !== undefined ? { validUntil } : {}) } };
  }
}
