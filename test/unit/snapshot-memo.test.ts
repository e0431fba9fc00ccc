import { describe, expect, it } from 'vitest';
import {
  ReadRevision,
  SNAPSHOT_MEMO_KEY,
  firstExpiry,
  snapshotStillCurrent,
  withoutStamp,
} from '../../src/shared/snapshot-memo.js';

const described = (
  rev: unknown,
  over: Partial<{ running: boolean; pendingTask: boolean; runId: string }> = {},
) => ({
  running: true,
  pendingTask: false,
  runId: 'run-1',
  memo: { [SNAPSHOT_MEMO_KEY]: rev },
  ...over,
});

describe('issue 16: read revisions in an entity workflow memo', () => {
  it('counts a change of content once, and asks for the memo to be written only then', () => {
    const r = new ReadRevision();
    expect(r.note('a', { [SNAPSHOT_MEMO_KEY]: 0 })).toBe(false);
    expect(r.note('a', { [SNAPSHOT_MEMO_KEY]: 0 })).toBe(false);
    expect(r.note('b', { [SNAPSHOT_MEMO_KEY]: 0 })).toBe(true);
    expect(r.rev).toBe(1);
    // A run continued from another carries that run's memo: written once.
    expect(new ReadRevision().note('a', { [SNAPSHOT_MEMO_KEY]: 7 })).toBe(true);
  });

  it('stamps an answer only while its content is the one counted', () => {
    const r = new ReadRevision();
    r.note('a', {});
    expect(r.stamp('a', 'run-1', 5)).toEqual({ stamp: { runId: 'run-1', rev: 0, validUntil: 5 } });
    expect(r.stamp('a2', 'run-1')).toEqual({});
  });

  it('holds an answer current only for the same run and revision, no task pending, before its expiry', () => {
    const stamp = { runId: 'run-1', rev: 3, validUntil: 100 };
    expect(snapshotStillCurrent(described(3), stamp, 99)).toBe(true);
    expect(snapshotStillCurrent(described(3), stamp, 100)).toBe(false);
    expect(snapshotStillCurrent(described(4), stamp, 0)).toBe(false);
    expect(snapshotStillCurrent(described(3, { runId: 'run-2' }), stamp, 0)).toBe(false);
    expect(snapshotStillCurrent(described(3, { pendingTask: true }), stamp, 0)).toBe(false);
    expect(snapshotStillCurrent(described(3, { running: false }), stamp, 0)).toBe(false);
    expect(snapshotStillCurrent(described(3), undefined, 0)).toBe(false);
  });

  it('R-SIGN: the first expiry among secrets in their grace period; the stamp never leaves Herald', () => {
    expect(firstExpiry([{}, { expiresAt: 9 }, { expiresAt: 4 }])).toBe(4);
    expect(firstExpiry([{}])).toBeUndefined();
    expect(withoutStamp({ a: 1, stamp: { runId: 'r', rev: 0 } })).toEqual({ a: 1 });
  });
});
