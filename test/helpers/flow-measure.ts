import type { Client } from '@temporalio/client';

/** Most arrivals in any window [t, t + 1 s) of the receiver's clock. */
export function busiestSecond(ats: number[]): number {
  const s = [...ats].sort((a, b) => a - b);
  let max = 0;
  for (let i = 0, j = 0; i < s.length; i++) {
    while (s[j]! < s[i]! - 999) j++;
    max = Math.max(max, i - j + 1);
  }
  return max;
}

/** The identities of the workers that sent a delivery's attempts (activity or inline): which took part. */
export async function workerIdentities(client: Client, ids: string[]): Promise<Set<string>> {
  const out = new Set<string>();
  for (const id of ids) {
    const h = await client.workflow.getHandle(id).fetchHistory();
    let lastTaskWorker: string | undefined;
    for (const e of h.events ?? []) {
      // A send is the activity, or the local activity inside the workflow task that ran it.
      const who =
        e.activityTaskStartedEventAttributes?.identity ??
        (e.markerRecordedEventAttributes ? lastTaskWorker : undefined);
      if (e.workflowTaskStartedEventAttributes?.identity) lastTaskWorker = e.workflowTaskStartedEventAttributes.identity;
      if (who) out.add(who);
    }
  }
  return out;
}

/** Events, permit updates, workflow tasks, timers and activities in a workflow's history. */
export async function historyCounts(client: Client, id: string) {
  const ev = (await client.workflow.getHandle(id).fetchHistory()).events ?? [];
  return {
    events: ev.length,
    updates: ev.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes).length,
    workflowTasks: ev.filter((e) => e.workflowTaskCompletedEventAttributes).length,
    timers: ev.filter((e) => e.timerStartedEventAttributes).length,
    activities: ev.filter((e) => e.activityTaskScheduledEventAttributes).length,
  };
}
