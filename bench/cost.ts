// (8) Issue 16: what a successful delivery costs Temporal, counted from histories rather than
// timed. Billable actions follow Temporal Cloud's published definition
// (https://docs.temporal.io/cloud/actions); BENCHMARKS.md lists which history events count.
import { Connection } from '@temporalio/client';
import proto, { type temporal } from '@temporalio/proto';
import type { Ctx } from './scenarios.js';
import { closedLoop } from './load.js';
import { nowMs } from './receiver.js';
import { round } from './stats.js';
import { countsBetween } from './prom-text.js';
import { billableActions, readServerActions } from './server-actions.js';

/** Seconds after the last arrival at which the server's action meter is read. */
const SERVER_ACTIONS_SETTLE_SECONDS = 5;

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const T = proto.temporal.api.enums.v1.EventType;
const RUNNING = proto.temporal.api.enums.v1.WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
/** The marker sdk-core records for each local activity's result. */
const LOCAL_ACTIVITY_MARKER = 'core_local_activity';

export interface Counts {
  historyEvents: number;
  workflowTasks: number;
  activityTasks: number;
  activityRetries: number;
  localActivities: number;
  markers: number;
  upserts: number;
  timers: number;
  signals: number;
  updates: number;
  childStarts: number;
  workflowStarts: number;
  actions: number;
}

const zero = (): Counts => ({
  historyEvents: 0,
  workflowTasks: 0,
  activityTasks: 0,
  activityRetries: 0,
  localActivities: 0,
  markers: 0,
  upserts: 0,
  timers: 0,
  signals: 0,
  updates: 0,
  childStarts: 0,
  workflowStarts: 0,
  actions: 0,
});

function add(a: Counts, b: Counts): Counts {
  const out = zero();
  for (const k of Object.keys(out) as (keyof Counts)[]) out[k] = a[k] + b[k];
  return out;
}

/**
 * Counts one history (or the part of it after `afterEventId`). Actions, by Temporal Cloud's
 * list: a workflow start (start-time search attributes included), each search-attribute
 * upsert, each activity scheduled and each retry of it (attempt - 1 on its start), the local
 * activities of one workflow task together as one (plus their non-first attempts), each timer,
 * each signal received, each accepted update, each execution-options update, and two per child
 * workflow start. Not in a history, so not counted: queries, workflow-task heartbeats, and the
 * fairness surcharge (+0.1 per action while fairness is on).
 */
export function countHistory(events: HistoryEvent[], afterEventId = 0): Counts {
  const c = zero();
  const laTasks = new Set<string>();
  for (const e of events) {
    if (Number(e.eventId ?? 0) <= afterEventId) continue;
    c.historyEvents++;
    switch (e.eventType) {
      case T.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
        c.workflowStarts++;
        c.actions++;
        break;
      case T.EVENT_TYPE_WORKFLOW_TASK_COMPLETED: {
        c.workflowTasks++;
        const extra = Number(
          e.workflowTaskCompletedEventAttributes?.meteringMetadata?.nonfirstLocalActivityExecutionAttempts ??
            0,
        );
        c.actions += extra;
        break;
      }
      case T.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
        c.activityTasks++;
        c.actions++;
        break;
      case T.EVENT_TYPE_ACTIVITY_TASK_STARTED: {
        const retries = Math.max(0, Number(e.activityTaskStartedEventAttributes?.attempt ?? 1) - 1);
        c.activityRetries += retries;
        c.actions += retries;
        break;
      }
      case T.EVENT_TYPE_MARKER_RECORDED: {
        c.markers++;
        const a = e.markerRecordedEventAttributes;
        if (a?.markerName === LOCAL_ACTIVITY_MARKER) {
          c.localActivities++;
          laTasks.add(String(a.workflowTaskCompletedEventId ?? e.eventId));
        }
        break;
      }
      case T.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES:
        c.upserts++;
        c.actions++;
        break;
      case T.EVENT_TYPE_TIMER_STARTED:
        c.timers++;
        c.actions++;
        break;
      case T.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
        c.signals++;
        c.actions++;
        break;
      case T.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED:
        c.updates++;
        c.actions++;
        break;
      case T.EVENT_TYPE_WORKFLOW_EXECUTION_OPTIONS_UPDATED:
        c.actions++;
        break;
      case T.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED:
        c.childStarts++;
        c.actions += 2;
        break;
      default:
        break;
    }
  }
  c.actions += laTasks.size;
  return c;
}

export async function history(conn: Connection, namespace: string, workflowId: string, runId?: string) {
  const events: HistoryEvent[] = [];
  let token: Uint8Array | undefined;
  do {
    const page = await conn.workflowService.getWorkflowExecutionHistory({
      namespace,
      execution: { workflowId, runId },
      nextPageToken: token,
      maximumPageSize: 1000,
    });
    events.push(...(page.history?.events ?? []));
    token = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (token);
  return events;
}

async function list(conn: Connection, namespace: string, query: string) {
  const out: temporal.api.workflow.v1.IWorkflowExecutionInfo[] = [];
  let token: Uint8Array | undefined;
  do {
    const page = await conn.workflowService.listWorkflowExecutions({
      namespace,
      query,
      pageSize: 1000,
      nextPageToken: token,
    });
    out.push(...(page.executions ?? []));
    token = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (token);
  return out;
}

const perDelivery = (c: Counts, n: number) =>
  Object.fromEntries(Object.entries(c).map(([k, v]) => [k, round(v / n, 2)])) as Record<keyof Counts, number>;

/**
 * (8) `events` events, each matching one of `endpointCount` endpoints of a tenant of its own,
 * all delivered at the first attempt. Then, `openAfterSeconds` later: the delivery workflows
 * still open, and the histories of everything the events started (deliveries, event records,
 * anything else started in the window) and what they added to the endpoints' workflows.
 */
export async function cost(ctx: Ctx, events: number, endpointCount: number, openAfterSeconds = 60) {
  const { key, tenantId } = await ctx.herald.tenantWithId(`cost-${Date.now().toString(36)}`);
  const eps: { type: string; id: string }[] = [];
  for (let i = 0; i < endpointCount; i++) {
    const type = `cost.e${i}`;
    const id = await ctx.herald.endpoint(key, {
      url: `${ctx.receiverUrl}/cost/${i}`,
      eventTypes: [type],
      preset: 'standard',
    });
    eps.push({ type, id });
  }
  const conn = await Connection.connect({ address: ctx.herald.temporalAddress });
  const ns = ctx.herald.namespace;
  try {
    // The endpoints' histories so far: what the deliveries add to them counts too.
    const epBefore = new Map<string, number>();
    for (const ep of eps) {
      const h = await history(conn, ns, ep.id).catch(() => []);
      epBefore.set(ep.id, Number(h.at(-1)?.eventId ?? 0));
    }
    // Visibility's StartTime has second precision: keep the endpoints' starts out of the window.
    await new Promise((r) => setTimeout(r, 2000));
    const windowStart = new Date(Date.now() - 500).toISOString();
    const tag = `cost_${Date.now().toString(36)}`;
    const eventIds = Array.from({ length: events }, (_, i) => `${tag}_${i}`);
    const deliveryIds: string[] = [];
    // The server's own meter, from just before the first publish (queries are in it too).
    const actionsBefore = await readServerActions(ctx.herald.serverMetricsUrl, ns);
    await closedLoop(events, Math.min(16, ctx.concurrency), async (i) => {
      const r = await ctx.herald.publishFull(key, eventIds[i]!, eps[i % endpointCount]!.type);
      deliveryIds.push(...r.deliveryIds);
    });
    await ctx.receiver.until(
      () => eventIds.every((id) => ctx.receiver.firstArrival.has(id)),
      10 * 60_000,
      'every cost delivery',
    );
    const succeededAt = nowMs();
    ctx.log(`cost: ${events} delivered (${deliveryIds.length} deliveries); waiting ${openAfterSeconds} s`);
    // The last workflow tasks and after-reads complete within a few seconds of the last
    // arrival; the meter is read then, inside the wait, so the wait stays as long as it was.
    const settleMs = Math.min(openAfterSeconds, SERVER_ACTIONS_SETTLE_SECONDS) * 1000;
    await new Promise((r) => setTimeout(r, settleMs));
    const actionsAfter = actionsBefore && (await readServerActions(ctx.herald.serverMetricsUrl, ns));
    await new Promise((r) => setTimeout(r, openAfterSeconds * 1000 - settleMs));

    // Open deliveries: each delivery's latest run, and the same asked of visibility.
    let open = 0;
    let deliveryType = '';
    for (const id of deliveryIds) {
      const d = await conn.workflowService.describeWorkflowExecution({
        namespace: ns,
        execution: { workflowId: id },
      });
      deliveryType ||= d.workflowExecutionInfo?.type?.name ?? '';
      if (d.workflowExecutionInfo?.status === RUNNING) open++;
    }
    const openByVisibility = Number(
      (
        await conn.workflowService.countWorkflowExecutions({
          namespace: ns,
          query: `HeraldTenant = '${tenantId}' AND ExecutionStatus = 'Running' AND WorkflowType = '${deliveryType}'`,
        })
      ).count ?? 0,
    );

    // Every run of every delivery (a delivery closed and reopened would show as two).
    const dset = new Set(deliveryIds);
    const started = await list(conn, ns, `StartTime >= '${windowStart}'`);
    let delivery = zero();
    let deliveryRuns = 0;
    const others = new Map<string, { workflows: number; counts: Counts }>();
    for (const wf of started) {
      const id = wf.execution?.workflowId ?? '';
      const h = await history(conn, ns, id, wf.execution?.runId ?? undefined);
      const c = countHistory(h);
      if (dset.has(id)) {
        delivery = add(delivery, c);
        deliveryRuns++;
      } else {
        const type = wf.type?.name ?? '?';
        const o = others.get(type) ?? { workflows: 0, counts: zero() };
        others.set(type, { workflows: o.workflows + 1, counts: add(o.counts, c) });
      }
    }
    let endpoint = zero();
    for (const ep of eps) {
      const h = await history(conn, ns, ep.id).catch(() => []);
      // After a continue-as-new the latest run starts again at 1: count all of it.
      const last = Number(h.at(-1)?.eventId ?? 0);
      const before = epBefore.get(ep.id) ?? 0;
      endpoint = add(endpoint, countHistory(h, last >= before ? before : 0));
    }
    let other = zero();
    for (const o of others.values()) other = add(other, o.counts);
    const n = deliveryIds.length || 1;
    const d = perDelivery(delivery, n);
    const all = perDelivery(add(add(delivery, other), endpoint), n);
    const meter = actionsBefore && actionsAfter ? countsBetween(actionsBefore, actionsAfter) : undefined;
    return {
      costDeliveries: deliveryIds.length,
      costDeliveryRuns: deliveryRuns,
      historyEventsPerDelivery: d.historyEvents,
      workflowTasksPerDelivery: d.workflowTasks,
      activityTasksPerDelivery: d.activityTasks,
      localActivitiesPerDelivery: d.localActivities,
      markersPerDelivery: d.markers,
      upsertsPerDelivery: d.upserts,
      timersPerDelivery: d.timers,
      signalsPerDelivery: d.signals,
      // The delivery's own workflow, then everything: event records and whatever else the
      // publishes started, and what the deliveries added to their endpoints' workflows.
      deliveryActionsPerDelivery: d.actions,
      actionsPerDelivery: all.actions,
      workflowTasksPerDeliveryAll: all.workflowTasks,
      historyEventsPerDeliveryAll: all.historyEvents,
      otherWorkflowsPerDelivery: round([...others.values()].reduce((s, o) => s + o.workflows, 0) / n, 2),
      costOtherWorkflows: Object.fromEntries(
        [...others].map(([type, o]) => [
          type,
          { workflows: o.workflows, ...perDelivery(o.counts, o.workflows) },
        ]),
      ),
      costEndpointAddedPerDelivery: perDelivery(endpoint, n),
      openDeliveriesAfterSuccess: open,
      openDeliveriesAfterSuccessVisibility: openByVisibility,
      costSecondsToRead: round((nowMs() - succeededAt) / 1000 - openAfterSeconds),
      // Absent where the server's /metrics cannot be read (a baseline without the port).
      ...(meter
        ? {
            serverActionsPerDelivery: round(billableActions(meter) / n, 2),
            serverQueriesPerDelivery: round((meter.grpc_QueryWorkflow ?? 0) / n, 2),
            serverActionsByTypePerDelivery: Object.fromEntries(
              Object.entries(meter).map(([type, count]) => [type, round(count / n, 2)]),
            ),
          }
        : {}),
    };
  } finally {
    await conn.close();
  }
}

/** An event's time in ms since the epoch; NaN for one without a time. */
export const eventMs = (e: HistoryEvent) =>
  e.eventTime ? Number(e.eventTime.seconds ?? 0) * 1000 + Math.round((e.eventTime.nanos ?? 0) / 1e6) : NaN;

/**
 * One workflow's history as [event type, ms since `fromMs`] pairs (wall clock), to see where a
 * slow delivery's time went: its start, its first task's schedule, the task's start.
 */
export async function timeline(address: string, namespace: string, workflowId: string, fromMs: number) {
  const conn = await Connection.connect({ address });
  try {
    const events = await history(conn, namespace, workflowId);
    return events.map((e) => {
      const ms = eventMs(e);
      const name = (T[e.eventType ?? 0] ?? String(e.eventType)).replace('EVENT_TYPE_', '');
      return [name, Math.round(ms - fromMs)] as const;
    });
  } finally {
    await conn.close();
  }
}
