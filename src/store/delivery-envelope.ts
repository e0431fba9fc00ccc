import { isGrpcServiceError, type Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import type { DeliveryInput, DeliveryState, EventEnvelope } from '../shared/delivery-types.js';
import type { EventRecord } from '../shared/event-types.js';
import { DELIVERY_WORKFLOW } from '../shared/names.js';
import {
  EVENT_RECORD_DELIVERY,
  SA_ENDPOINT,
  SA_EVENT_ID,
  SA_EVENT_RECORD,
  SA_TENANT,
} from '../shared/search-attributes.js';
import { decodePayloads } from '../temporal/decode-payloads.js';
import { NOT_CONTINUED, and, eq, ofType } from './visibility.js';

/**
 * Issue 14.11: where the API reads an event's body. The event record (`eventWorkflow`)
 * closes as soon as it is started; a delivery carries the event in its own input (every
 * run's: continueAsNew and, since issue 16, every reopen). Since issue 16 a delivery closes
 * when its round ends and is kept the namespace retention (90 days) from there, so reading
 * the body from the delivery keeps it readable as long as the delivery can be replayed
 * (Dong Tien: 90 days, R-DT-REPLAY), at no cost in history events: the input is already there.
 */

/** gRPC status NOT_FOUND (grpc-js is not a direct dependency of Herald). */
const GRPC_NOT_FOUND = 5;

/**
 * The input of the workflow's latest run: the first event of its history, one page of one
 * event (not the whole history), decoded with the client's codec. No worker is asked, so it
 * answers for a closed delivery too. Undefined when Temporal no longer has the workflow.
 */
export async function startInputOf<T>(
  client: Client,
  workflowId: string,
  runId?: string,
): Promise<T | undefined> {
  let page;
  try {
    page = await client.workflowService.getWorkflowExecutionHistory({
      namespace: client.options.namespace,
      execution: { workflowId, ...(runId ? { runId } : {}) },
      maximumPageSize: 1,
    });
  } catch (err) {
    if (isGrpcServiceError(err) && err.code === GRPC_NOT_FOUND) return undefined;
    throw err;
  }
  const started = page.history?.events?.[0]?.workflowExecutionStartedEventAttributes;
  if (!started) return undefined;
  const [input] = await decodePayloads(client.options.loadedDataConverter, started.input?.payloads);
  return input as T | undefined;
}

/**
 * Issue 16: a closed delivery's state, its workflow result read from the close event (one
 * event, decoded with the client's codec), without a worker. Undefined when the run is still
 * open, ended without a result (terminated, continued as new), or is gone.
 */
export async function closedState(
  client: Client,
  workflowId: string,
  runId?: string,
): Promise<DeliveryState | undefined> {
  let page;
  try {
    page = await client.workflowService.getWorkflowExecutionHistory({
      namespace: client.options.namespace,
      execution: { workflowId, ...(runId ? { runId } : {}) },
      historyEventFilterType:
        proto.temporal.api.enums.v1.HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT,
      waitNewEvent: false,
    });
  } catch (err) {
    if (isGrpcServiceError(err) && err.code === GRPC_NOT_FOUND) return undefined;
    throw err;
  }
  const completed = page.history?.events?.[0]?.workflowExecutionCompletedEventAttributes;
  if (!completed) return undefined;
  const [state] = await decodePayloads(client.options.loadedDataConverter, completed.result?.payloads);
  return (state ?? undefined) as DeliveryState | undefined;
}

/** The event exactly as this delivery sends it (R-SIGN: the same body on every attempt and replay). */
export async function deliveryEnvelope(
  client: Client,
  deliveryId: string,
): Promise<EventEnvelope | undefined> {
  return (await startInputOf<DeliveryInput>(client, deliveryId))?.event;
}

/** At most this many deliveries are listed for an event read back from its deliveries. */
export const EVENT_DELIVERIES_CAP = 1000;

/**
 * An event read back from the deliveries Temporal still keeps: one published without a
 * record (issue 16 (4)), which skipped no endpoint (`skipped: []`), or one whose record is past
 * retention (a Dong Tien delivery: replayable 90 days), where what the record alone knew
 * (endpoints skipped at publish) is gone with it and `skipped` is left out.
 */
export async function eventFromDeliveries(
  client: Client,
  tenantId: string,
  eventId: string,
): Promise<EventRecord | Omit<EventRecord, 'skipped'> | undefined> {
  const query = and(
    ofType(DELIVERY_WORKFLOW),
    eq(SA_TENANT, tenantId),
    eq(SA_EVENT_ID, eventId),
    NOT_CONTINUED,
  );
  const deliveries: Array<{ id: string; endpointId: string }> = [];
  const seen = new Set<string>();
  let recordless = false;
  for await (const wf of client.workflow.list({ query, pageSize: 100 })) {
    recordless ||= wf.typedSearchAttributes.get(SA_EVENT_RECORD) === EVENT_RECORD_DELIVERY;
    // A reopened delivery (issue 16) has a row per run: one delivery.
    if (seen.has(wf.workflowId)) continue;
    seen.add(wf.workflowId);
    deliveries.push({ id: wf.workflowId, endpointId: wf.typedSearchAttributes.get(SA_ENDPOINT) ?? '' });
    if (deliveries.length >= EVENT_DELIVERIES_CAP) break;
  }
  deliveries.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  // Every delivery of one event carries the same envelope; the first one still kept answers.
  for (const d of deliveries) {
    const event = await deliveryEnvelope(client, d.id);
    if (event && event.id === eventId)
      return {
        eventId,
        type: event.type,
        occurredAt: event.occurredAt,
        body: event.body,
        deliveries,
        ...(recordless ? { skipped: [] } : {}),
      };
  }
  return undefined;
}
