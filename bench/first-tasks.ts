// (7) Issue 16: where each delivery's first workflow task waited, read from its history
// (sessions 34 and 35 did this with scratch scripts). A first task that started within
// AT_ONCE_MS of being scheduled came with the start (eager) or found a poll waiting; any
// other waited in matching for a free slot. With it, what the delivery cost in all.
import { Connection } from '@temporalio/client';
import proto, { type temporal } from '@temporalio/proto';
import { countHistory, eventMs, history } from './cost.js';
import { percentile, round } from './stats.js';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const T = proto.temporal.api.enums.v1.EventType;

/** Scheduled and started this close together: the task did not wait in matching. */
export const AT_ONCE_MS = 5;

export interface FirstTask {
  /** When the delivery's workflow started (ms since the epoch). */
  startedAt: number;
  /** From its first workflow task's scheduling to its start. */
  waitMs: number;
  workflowTasks: number;
  historyEvents: number;
  activityTasks: number;
  signals: number;
}

/** The first task's wait and the delivery's counts; undefined for a history without a started task. */
export function firstTaskOf(events: HistoryEvent[]): FirstTask | undefined {
  const started = events.find((e) => e.eventType === T.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED);
  const scheduled = events.find((e) => e.eventType === T.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED);
  const taken = events.find((e) => e.eventType === T.EVENT_TYPE_WORKFLOW_TASK_STARTED);
  if (!started || !scheduled || !taken) return undefined;
  const c = countHistory(events);
  return {
    startedAt: eventMs(started),
    waitMs: eventMs(taken) - eventMs(scheduled),
    workflowTasks: c.workflowTasks,
    historyEvents: c.historyEvents,
    activityTasks: c.activityTasks,
    signals: c.signals,
  };
}

/**
 * Over a group of deliveries: the share whose first task started at once, the first tasks'
 * waits (all of them, at-once ones as 0 to the millisecond they took), and the mean counts.
 * `slowest` lists the longest waits as [seconds after `t0` the delivery started, wait ms].
 */
export function summarizeFirstTasks(rows: FirstTask[], t0: number, slowest = 5) {
  const n = rows.length;
  const mean = (k: 'workflowTasks' | 'historyEvents' | 'activityTasks' | 'signals') =>
    n ? round(rows.reduce((a, r) => a + r[k], 0) / n, 2) : NaN;
  const waits = rows.map((r) => r.waitMs);
  return {
    deliveries: n,
    atOnceShare: n ? round(rows.filter((r) => r.waitMs <= AT_ONCE_MS).length / n, 3) : NaN,
    waitP50Ms: round(percentile(waits, 50)),
    waitP99Ms: round(percentile(waits, 99)),
    waitMaxMs: round(percentile(waits, 100)),
    workflowTasksPerDelivery: mean('workflowTasks'),
    historyEventsPerDelivery: mean('historyEvents'),
    activityTasksPerDelivery: mean('activityTasks'),
    signalsPerDelivery: mean('signals'),
    slowestWaits: [...rows]
      .sort((a, b) => b.waitMs - a.waitMs)
      .slice(0, slowest)
      .map((r) => [round((r.startedAt - t0) / 1000), r.waitMs] as const),
  };
}

/** Reads the histories of `workflowIds`, `parallel` at a time; ones without a first task are left out. */
export async function readFirstTasks(
  address: string,
  namespace: string,
  workflowIds: string[],
  parallel = 16,
): Promise<FirstTask[]> {
  const conn = await Connection.connect({ address });
  const rows: FirstTask[] = [];
  let next = 0;
  try {
    await Promise.all(
      Array.from({ length: parallel }, async () => {
        while (next < workflowIds.length) {
          const row = firstTaskOf(await history(conn, namespace, workflowIds[next++]!));
          if (row) rows.push(row);
        }
      }),
    );
  } finally {
    await conn.close();
  }
  return rows;
}
