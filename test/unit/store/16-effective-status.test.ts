// Issue 16 (R-STATUS in the index): a run that closes at its round end upserts HeraldStatus
// only for the endings lists filter on; the status a list shows (effectiveStatus) and the
// clause a status filter sends (statusClause) are one rule.
import { describe, expect, it } from 'vitest';
import { effectiveStatus, statusIn } from '../../../src/store/deliveries.js';
import { createdAtOrAfter, or, statusClause } from '../../../src/store/visibility.js';

describe('16: a delivery status as visibility shows it', () => {
  it('R-STATUS: an ending in HeraldStatus wins; otherwise running is pending, completed succeeded, anything else closed failed', () => {
    expect(effectiveStatus('exhausted', 'COMPLETED')).toBe('exhausted');
    expect(effectiveStatus('dead', 'COMPLETED')).toBe('dead');
    expect(effectiveStatus('failed', 'COMPLETED')).toBe('failed');
    // A run started before issue 16 upserted succeeded and held open.
    expect(effectiveStatus('succeeded', 'RUNNING')).toBe('succeeded');
    // Since issue 16 a successful delivery is never upserted: it is its closed run.
    expect(effectiveStatus('pending', 'COMPLETED')).toBe('succeeded');
    expect(effectiveStatus('pending', 'RUNNING')).toBe('pending');
    expect(effectiveStatus('processing', 'RUNNING')).toBe('processing');
    expect(effectiveStatus('pending', 'TERMINATED')).toBe('failed');
    expect(effectiveStatus(undefined, 'TIMED_OUT')).toBe('failed');
  });

  it('R-STATUS: each status filter is the clause of that same rule', () => {
    expect(statusClause('succeeded')).toBe(
      "(HeraldStatus = 'succeeded' OR (ExecutionStatus = 'Completed' AND HeraldStatus IN ('pending', 'processing')))",
    );
    expect(statusClause('pending')).toBe("HeraldStatus = 'pending' AND ExecutionStatus = 'Running'");
    expect(statusClause('exhausted')).toBe("HeraldStatus = 'exhausted'");
    expect(statusClause('failed')).toBe(
      "(HeraldStatus = 'failed' OR (ExecutionStatus IN ('Terminated', 'TimedOut', 'Failed', 'Canceled') AND HeraldStatus IN ('pending', 'processing')))",
    );
    expect(statusIn(['exhausted', 'dead'])).toBe("(HeraldStatus = 'exhausted' OR HeraldStatus = 'dead')");
    // ORed clauses that AND inside keep their grouping.
    expect(or('a = 1 AND b = 2', 'c = 3')).toBe('((a = 1 AND b = 2) OR c = 3)');
  });

  it('16 R-LOG: lists window on creation (HeraldCreatedAt), falling back to the start of runs that predate it', () => {
    expect(createdAtOrAfter(new Date('2026-01-01T00:00:00.000Z'))).toBe(
      "(HeraldCreatedAt >= '2026-01-01T00:00:00.000Z' OR (HeraldCreatedAt IS NULL AND StartTime >= '2026-01-01T00:00:00.000Z'))",
    );
  });
});
