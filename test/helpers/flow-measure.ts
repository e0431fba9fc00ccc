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

/** The identities that ran a delivery's activity tasks: which workers took part. */
export async function workerIdentities(client: Client, ids: string[]): Promise<Set<string>> {
  const out = new Set<string>();
  for (const id of ids) {
    const h = await client.workflow.getHandle(id).fetchHistory();
    for (const e of h.events ?? []) {
      const who = e.activityTaskStartedEventAttributes?.identity;
      if (who) out.add(who);
    }
  }
  return out;
}

/** Events and permit updates in a workflow's history. */
export async function historyCounts(client: Client, id: string) {
  const ev = (await client.workflow.getHandle(id).fetchHistory()).events ?? [];
  return { events: ev.length, updates: ev.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes).length };
}
