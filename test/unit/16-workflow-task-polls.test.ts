// Issue 16 (7): the worker's workflow-task polls on the task queue and on its sticky queue,
// as the SDK will open them from the options Herald gives it.
import { describe, expect, it } from 'vitest';
import { workflowTaskPolls } from '../../src/temporal/workflow-task-pollers.js';

/** sdk-core's split (`wft_poller_behavior`): floor(total x ratio), at least 1, on the task queue. */
function opened(taskQueuePolls: number, stickyPolls: number, slots: number) {
  const p = workflowTaskPolls(taskQueuePolls, stickyPolls, slots);
  const total = p.workflowTaskPollerBehavior.maximum;
  const taskQueue = Math.max(1, Math.floor(total * p.nonStickyToStickyPollRatio));
  return { taskQueue, sticky: Math.max(1, total - taskQueue) };
}

describe('16 (7) the workflow-task polls a worker opens on each queue', () => {
  it('opens exactly the polls asked for on each queue, for every split up to 30', () => {
    for (let q = 1; q <= 30; q++)
      for (let s = 1; s <= 30; s++) expect(opened(q, s, 100)).toEqual({ taskQueue: q, sticky: s });
  });

  it('a worker with fewer slots than polls asked for opens one poll per slot, split in proportion', () => {
    expect(opened(5, 5, 4)).toEqual({ taskQueue: 2, sticky: 2 });
    expect(opened(6, 2, 4)).toEqual({ taskQueue: 3, sticky: 1 });
    expect(opened(5, 5, 2)).toEqual({ taskQueue: 1, sticky: 1 });
  });

  it('refuses a count below one', () => {
    expect(() => workflowTaskPolls(0, 5, 40)).toThrow(/taskQueuePolls/);
    expect(() => workflowTaskPolls(5, 0, 40)).toThrow(/stickyPolls/);
  });
});
