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
  SA_ENDPOINT,
  SA_EVENT_ID,
  SA_EVENT_TYPE,
  SA_PRESET,
  SA_STATUS,
  SA_TENANT,
} from '../shared/search-attributes.js';
import { deliveryEnvelope } from './delivery-envelope.js';
import { newestFirst } from './newest-first.js';
import { unlessNotFound } from './not-found.js';
import { and, eq, isIn, ofType } from './visibility.js';

/** A delivery as visibility knows it: enough for list rows without querying the workflow. */
export interface DeliveryRef {
  id: string;
  endpointId: string;
  eventType: string;
  eventId: string;
  /** HeraldStatus as last indexed (visibility lags the workflow by a moment). */
  status: DeliveryStatus;
  preset?: string;
  createdAt: string;
  startMs: number;
  /** Still open: dead-letter retry and replay can reach it. */
  open: boolean;
}

export function refOf(
  wf: Pick<WorkflowExecutionInfo, 'workflowId' | 'typedSearchAttributes' | 'startTime' | 'status'>,
): DeliveryRef {
  const sa = wf.typedSearchAttributes;
  return {
    id: wf.workflowId,
    endpointId: sa.get(SA_ENDPOINT) ?? '',
    eventType: sa.get(SA_EVENT_TYPE) ?? '',
    eventId: sa.get(SA_EVENT_ID) ?? '',
    // Only the delivery workflow writes HeraldStatus, and only a DeliveryStatus.
    status: (sa.get(SA_STATUS) ?? 'pending') as DeliveryStatus,
    preset: sa.get(SA_PRESET),
    createdAt: wf.startTime.toISOString(),
    startMs: wf.startTime.getTime(),
    open: wf.status.name === 'RUNNING',
  };
}

/** The tenant's deliveries, as a visibility query; `extra` clauses are ANDed. */
export function deliveriesQuery(tenantId: string, ...extra: Array<string | undefined | false>): string {
  return and(ofType(DELIVERY_WORKFLOW), eq(SA_TENANT, tenantId), ...extra);
}

export const statusIn = (statuses: readonly string[]) => isIn(SA_STATUS, statuses);

/**
 * Deliveries of these presets only: how a list keeps to what the presets' recovery offers
 * (issue 14.6). An empty list matches nothing.
 */
export const presetIn = (presets: readonly string[]) => isIn(SA_PRESET, presets);

/** Reads every match (up to `cap`), for callers that sort or group themselves. */
export async function listAll(client: Client, query: string, cap: number): Promise<DeliveryRef[]> {
  const out: DeliveryRef[] = [];
  for await (const wf of client.workflow.list({ query, pageSize: Math.min(1000, cap) })) {
    out.push(refOf(wf));
    if (out.length >= cap) break;
  }
  return out;
}

/** The newest `limit` matches by start time (see newest-first.ts). */
export const newestDeliveries = (
  client: Client,
  query: string,
  limit: number,
  bounds: { since?: Date; until?: Date } = {},
): Promise<DeliveryRef[]> => newestFirst((q, cap) => listAll(client, q, cap), query, limit, bounds);

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

/** The delivery's state; `undefined` only when its workflow is gone (past retention). */
export const deliveryState = (client: Client, id: string): Promise<DeliveryState | undefined> =>
  unlessNotFound(client.workflow.getHandle(id).query(deliveryStateQuery));

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
