import {
  WorkflowUpdateFailedError,
  type Client,
  type WorkflowExecutionDescription,
  type WorkflowExecutionInfo,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { DeliveryState, DeliveryStatus } from '../shared/delivery-types.js';
import { DELIVERY_ID } from '../shared/ids.js';
import { deliveryStateQuery } from '../shared/messages.js';
import { DELIVERY_WORKFLOW } from '../shared/names.js';
import {
  SA_CREATED_AT,
  SA_ENDPOINT,
  SA_EVENT_ID,
  SA_EVENT_TYPE,
  SA_PRESET,
  SA_STATUS,
  SA_TENANT,
} from '../shared/search-attributes.js';
import { mayReopen } from '../policy/replay-window.js';
import { closedState, deliveryEnvelope } from './delivery-envelope.js';
import { delayedState, isDelayedStart } from './delayed-start.js';
import { newestFirst } from './newest-first.js';
import { unlessNotFound } from './not-found.js';
import { NOT_CONTINUED, and, eq, isIn, ofType, or, statusClause } from './visibility.js';

/** A delivery as visibility knows it: enough for list rows without querying the workflow. */
export interface DeliveryRef {
  id: string;
  /** The run this row is: a reopened delivery (issue 16) is a new run of the same id. */
  runId: string;
  endpointId: string;
  eventType: string;
  eventId: string;
  /** Its status as the index shows it (`effectiveStatus`; visibility lags the workflow by a moment). */
  status: DeliveryStatus;
  preset?: string;
  /** The delivery's creation, kept through every reopen (HeraldCreatedAt, else the run's start). */
  createdAt: string;
  /** `createdAt` in ms: the key lists order by, newest first. */
  startMs: number;
  /** The run is still open: a pending delivery, or one started before issue 16 in its recovery window. */
  running: boolean;
  /** When the run closed (its round ended), for a closed one. */
  closedAtMs?: number;
  /**
   * Issue 17: a run started with a delay (its rate-limited turn reserved at publish) runs its
   * first task at this time. Until then a query would wait for it, so a read answers without one.
   */
  delayedUntilMs?: number;
  /**
   * The run closes at its round end (issue 16), so a closed one may be reopened as a new run
   * within its preset's window (`reopenable`). A run started before issue 16 closed at the
   * end of its window: it cannot be reopened.
   */
  closesAtRoundEnd: boolean;
}

const ENDINGS: readonly string[] = ['exhausted', 'dead', 'failed', 'succeeded'];

/**
 * Issue 16: a delivery's status from its index entry and its run's status (see
 * visibility.ts `statusClause`, the same rule as a clause): HeraldStatus when it names an
 * ending; otherwise a running run is pending (or `processing`, as runs started before issue
 * 16 upserted it), a completed one succeeded, any other closed one failed.
 */
export function effectiveStatus(indexed: string | undefined, execution: string): DeliveryStatus {
  if (indexed && ENDINGS.includes(indexed)) return indexed as DeliveryStatus;
  if (execution === 'RUNNING') return indexed === 'processing' ? 'processing' : 'pending';
  return execution === 'COMPLETED' ? 'succeeded' : 'failed';
}

export function refOf(
  wf: Pick<
    WorkflowExecutionInfo,
    'workflowId' | 'runId' | 'typedSearchAttributes' | 'startTime' | 'status' | 'closeTime' | 'executionTime'
  >,
): DeliveryRef {
  const sa = wf.typedSearchAttributes;
  const created = sa.get(SA_CREATED_AT);
  const createdAt = created instanceof Date && !Number.isNaN(created.getTime()) ? created : wf.startTime;
  const running = wf.status.name === 'RUNNING';
  return {
    id: wf.workflowId,
    runId: wf.runId,
    endpointId: sa.get(SA_ENDPOINT) ?? '',
    eventType: sa.get(SA_EVENT_TYPE) ?? '',
    eventId: sa.get(SA_EVENT_ID) ?? '',
    status: effectiveStatus(sa.get(SA_STATUS), wf.status.name),
    preset: sa.get(SA_PRESET),
    createdAt: createdAt.toISOString(),
    startMs: createdAt.getTime(),
    running,
    ...(!running && wf.closeTime ? { closedAtMs: wf.closeTime.getTime() } : {}),
    ...(running && wf.executionTime && wf.executionTime > wf.startTime ? { delayedUntilMs: wf.executionTime.getTime() } : {}),
    closesAtRoundEnd: created !== undefined,
  };
}

/**
 * Issue 16: may this delivery be reopened (dead-letter retry, replay) at `nowMs`? A running
 * run answers for itself (its update's validator, and a run started before issue 16 holds
 * open exactly its window); a closed one by its preset's rule (policy/replay-window.ts),
 * from its creation and the end of its round. A run started before issue 16 that closed has
 * had its window: no.
 */
export function reopenable(ref: DeliveryRef, nowMs: number): boolean {
  if (ref.running) return true;
  if (!ref.closesAtRoundEnd || ref.closedAtMs === undefined) return false;
  return mayReopen(ref.preset, { createdAtMs: ref.startMs, roundEndedAtMs: ref.closedAtMs }, nowMs);
}

/** The tenant's deliveries, as a visibility query; `extra` clauses are ANDed. */
export function deliveriesQuery(tenantId: string, ...extra: Array<string | undefined | false>): string {
  return and(ofType(DELIVERY_WORKFLOW), eq(SA_TENANT, tenantId), NOT_CONTINUED, ...extra);
}

/** Deliveries in any of these statuses, as `effectiveStatus` reads them (issue 16). */
export const statusIn = (statuses: readonly string[]) => or(...statuses.map(statusClause));

/**
 * Deliveries of these presets only: how a list keeps to what the presets' recovery offers
 * (issue 14.6). An empty list matches nothing.
 */
export const presetIn = (presets: readonly string[]) => isIn(SA_PRESET, presets);

/** Reads every match (up to `cap`) as it stands in visibility, every run a row. */
async function listRows(client: Client, query: string, cap: number): Promise<DeliveryRef[]> {
  const out: DeliveryRef[] = [];
  for await (const wf of client.workflow.list({ query, pageSize: Math.min(1000, cap) })) {
    out.push(refOf(wf));
    if (out.length >= cap) break;
  }
  return out;
}

/** Ids asked about in one visibility query when checking for later runs. */
const LATEST_BATCH = 200;

/**
 * Issue 16: a reopened delivery is a new run of the same id, and its earlier run's row stays
 * in visibility (as exhausted, say) until retention: only the latest run stands for the
 * delivery. Keeps the rows that are their delivery's latest run, one per id, in order. A
 * running row is always its id's latest; closed rows are checked with one query per batch.
 */
export async function latestRunsOnly(client: Client, rows: DeliveryRef[]): Promise<DeliveryRef[]> {
  const latest = new Map<string, { runId: string; startMs: number; running: boolean }>();
  const ids = [...new Set(rows.filter((r) => !r.running && r.closesAtRoundEnd).map((r) => r.id))];
  for (let i = 0; i < ids.length; i += LATEST_BATCH) {
    const batch = ids.slice(i, i + LATEST_BATCH);
    const query = and(ofType(DELIVERY_WORKFLOW), NOT_CONTINUED, isIn('WorkflowId', batch));
    for await (const wf of client.workflow.list({ query, pageSize: 1000 })) {
      const seen = latest.get(wf.workflowId);
      const run = { runId: wf.runId, startMs: wf.startTime.getTime(), running: wf.status.name === 'RUNNING' };
      if (!seen || run.running || (!seen.running && run.startMs > seen.startMs))
        latest.set(wf.workflowId, run);
    }
  }
  const kept = new Set<string>();
  return rows.filter((r) => {
    if (kept.has(r.id)) return false;
    const l = latest.get(r.id);
    if (l && l.runId !== r.runId) return false;
    kept.add(r.id);
    return true;
  });
}

/** Reads every match (up to `cap`), latest runs only, for callers that sort or group themselves. */
export async function listAll(client: Client, query: string, cap: number): Promise<DeliveryRef[]> {
  return latestRunsOnly(client, await listRows(client, query, cap));
}

/** The newest `limit` matches by creation (see newest-first.ts), latest runs only. */
export const newestDeliveries = (
  client: Client,
  query: string,
  limit: number,
  bounds: { since?: Date; until?: Date } = {},
): Promise<DeliveryRef[]> =>
  newestFirst(
    (q, cap) => listRows(client, q, cap),
    query,
    limit,
    bounds,
    (rows) => latestRunsOnly(client, rows),
  );

/**
 * The delivery if it is the tenant's (Svix's secure_find_by_id): another tenant's delivery
 * and a missing one are the same `undefined`, so no id leaks whether it exists. A Temporal
 * that does not answer is thrown on, never taken for "not found".
 */
export async function ownedDelivery(
  client: Client,
  tenantId: string,
  id: string,
): Promise<{ ref: DeliveryRef; description: WorkflowExecutionDescription } | undefined> {
  if (!DELIVERY_ID.test(id)) return undefined;
  const d = await unlessNotFound(client.workflow.getHandle(id).describe());
  if (!d || d.type !== DELIVERY_WORKFLOW || d.typedSearchAttributes.get(SA_TENANT) !== tenantId)
    return undefined;
  return { ref: refOf(d), description: d };
}

/** A delayed run this close to its start is queried: it answers once its first task ran. */
const DELAYED_MARGIN_MS = 500;

/**
 * The delivery's state; `undefined` only when its workflow is gone (past retention). A closed
 * run (issue 16: every delivery once its round ends) is read from its result in the close
 * event, without a worker; an open one, or one whose result is not its state (terminated), is
 * queried.
 */
export async function deliveryState(
  client: Client,
  id: string,
  ref?: Pick<DeliveryRef, 'running' | 'runId' | 'delayedUntilMs'>,
): Promise<DeliveryState | undefined> {
  // A delayed run not started yet: its state is known from its input (store/delayed-start.ts).
  if (ref?.running && ref.delayedUntilMs !== undefined && ref.delayedUntilMs > Date.now() + DELAYED_MARGIN_MS)
    return delayedState(client, id);
  if (ref && !ref.running) {
    const closed = await closedState(client, id, ref.runId);
    if (closed) return closed;
  }
  try {
    return await unlessNotFound(client.workflow.getHandle(id).query(deliveryStateQuery));
  } catch (err) {
    if (isDelayedStart(err)) return delayedState(client, id);
    throw err;
  }
}

/**
 * The event body (exact bytes sent) from the delivery's own input (issue 14.11). A read
 * that fails leaves the body out rather than failing the log.
 */
export const deliveryBody = (client: Client, id: string): Promise<string | undefined> =>
  deliveryEnvelope(client, id).then(
    (e) => e?.body,
    () => undefined,
  );

/** The reason an update was refused inside the workflow (its validator's failure type). */
export function updateFailureType(err: unknown): string | undefined {
  if (!(err instanceof WorkflowUpdateFailedError)) return undefined;
  const cause = err.cause;
  return cause instanceof ApplicationFailure ? (cause.type ?? undefined) : undefined;
}
