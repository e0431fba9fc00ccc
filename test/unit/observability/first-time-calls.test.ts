// Issue 20: the worker's filter of metric calls a repeated workflow task makes again.
import { describe, expect, it } from 'vitest';
import { firstTimeCalls } from '../../../src/observability/worker-sinks.js';

describe('issue 20: each metric call counted once', () => {
  it('drops the same call under the same number of the same run', () => {
    const fresh = firstTimeCalls();
    expect(fresh('run-1', 3, 'dead_letter')).toBe(true);
    expect(fresh('run-1', 3, 'dead_letter')).toBe(false);
    expect(fresh('run-1', 4, 'exhausted')).toBe(true);
    // Another run (a replay's new run, or another delivery) is its own count.
    expect(fresh('run-2', 3, 'dead_letter')).toBe(true);
  });

  it("R-CRASH: counts a repeated first task's different call under a number already used", () => {
    const fresh = firstTimeCalls();
    // The first try told of its inline attempt's success, then timed out.
    expect(fresh('run-1', 1, '')).toBe(true);
    expect(fresh('run-1', 2, 'success')).toBe(true);
    // The repeat: the same start, then the attempt lost with the first try.
    expect(fresh('run-1', 1, '')).toBe(false);
    expect(fresh('run-1', 2, 'worker_error')).toBe(true);
    expect(fresh('run-1', 3, 'success')).toBe(true);
  });

  it('forgets the oldest calls past what it remembers', () => {
    const fresh = firstTimeCalls(2);
    fresh('a', 1, '');
    fresh('b', 1, '');
    fresh('c', 1, '');
    expect(fresh('c', 1, '')).toBe(false);
    expect(fresh('a', 1, '')).toBe(true);
  });
});
