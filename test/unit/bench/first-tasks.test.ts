import proto, { type temporal } from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { firstTaskOf, summarizeFirstTasks } from '../../../bench/first-tasks.js';

const T = proto.temporal.api.enums.v1.EventType;
const at = (ms: number) => ({ seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1e6 });
// Numbers where a decoded history has Longs: the reader takes either (Number()).
const ev = (eventId: number, eventType: number, ms: number) =>
  ({ eventId, eventType, eventTime: at(ms) }) as unknown as temporal.api.history.v1.IHistoryEvent;

/** A delivery: started at `t`, its first task taken `waitMs` later, one activity and one signal if `slow`. */
const delivery = (t: number, waitMs: number, slow = false) => {
  const events = [
    ev(1, T.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED, t),
    ev(2, T.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, t),
    ev(3, T.EVENT_TYPE_WORKFLOW_TASK_STARTED, t + waitMs),
    ev(4, T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, t + waitMs + 3),
  ];
  if (slow)
    events.push(
      ev(5, T.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED, t + 10_000),
      ev(6, T.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, t + 10_000),
      ev(7, T.EVENT_TYPE_WORKFLOW_TASK_STARTED, t + 10_001),
      ev(8, T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, t + 10_002),
      ev(9, T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, t + 10_002),
    );
  events.push(ev(events.length + 1, T.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED, t + 20_000));
  return events;
};

describe('issue 16 (7): where a delivery’s first workflow task waited, from its history', () => {
  it('reads the wait between the first task’s scheduling and its start, and the delivery’s counts', () => {
    expect(firstTaskOf(delivery(1_000_000, 2_400, true))).toEqual({
      startedAt: 1_000_000,
      waitMs: 2_400,
      workflowTasks: 2,
      historyEvents: 10,
      activityTasks: 1,
      signals: 1,
    });
    expect(firstTaskOf([ev(1, T.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED, 5)])).toBeUndefined();
  });

  it('summarizes a group: the share started at once, the waits, the slowest by when they started', () => {
    const t0 = 1_000_000;
    const rows = [
      ...Array.from({ length: 8 }, (_, i) => firstTaskOf(delivery(t0 + i * 100, 1))!),
      firstTaskOf(delivery(t0 + 2_000, 1_500))!,
      firstTaskOf(delivery(t0 + 3_000, 2_600, true))!,
    ];
    const s = summarizeFirstTasks(rows, t0, 2);
    expect(s.deliveries).toBe(10);
    expect(s.atOnceShare).toBe(0.8);
    expect(s.waitP50Ms).toBe(1);
    expect(s.waitMaxMs).toBe(2_600);
    expect(s.workflowTasksPerDelivery).toBe(1.1);
    expect(s.signalsPerDelivery).toBe(0.1);
    expect(s.slowestWaits).toEqual([
      [3, 2_600],
      [2, 1_500],
    ]);
  });
});
