import { isGrpcServiceError, type Client } from '@temporalio/client';
import type { DeliveryInput, EventEnvelope } from '../shared/delivery-types.js';
import type { EventRecord } from '../shared/event-types.js';
import { DELIVERY_WORKFLOW } from '../shared/names.js';
import { SA_ENDPOINT, SA_EVENT_ID, SA_TENANT } from '../shared/search-attributes.js';
import { decodePayloads } from '../temporal/decode-payloads.js';
import { and, eq, ofType } from './visibility.js';

/**
 * Issue 14.11: where the API reads an event's body. The event record (`eventWorkflow`)
 * closes as soon as it is started, so Temporal deletes it after the namespace retention
 * (30 days); a Dong Tien delivery stays open 90 days for replay (R-DT-REPLAY) and carries
 * the event in its own input (every run's, continueAsNew included). Reading the body from
 * the delivery keeps it readable as long as the delivery can be replayed, at no cost in
 * history events or open workflows: the input is already there.
 */

/** gRPC status NOT_FOUND (grpc-js is not a direct dependency of Herald). */
const GRPC_NOT_FOUND = 5;

/**
 * The input of the workflow's latest run: the first event of its history, one page of one
 * event (not the whole history), decoded with the client's codec. No worker is asked, so it
 * answers for a closed delivery too. Undefined when Temporal no longer has the workflow.
 */
export async function startInputOf<T>(client: Client, workflowId: string): Promise<T | undefined> {
  let page;
  try {
    page = await client.workflowService.getWorkflowExecutionHistory({
      namespace: client.options.namespace,
      execution: { workflowId },
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
 * An event whose record is past retention, read back from its deliveries that Temporal
 * still keeps (a Dong Tien delivery: 90 days open, then the retention). What the record
 * alone knew (endpoints skipped at publish) is gone with it: `skipped` is left out.
 */
export async function eventFromDeliveries(
  client: Client,
  tenantId: string,
  eventId: string,
): Promise<Omit<EventRecord, 'skipped'> | undefined> {
  const query = and(ofType(DELIVERY_WORKFLOW), eq(SA_TENANT, tenantId), eq(SA_EVENT_ID, eventId));
  const deliveries: Array<{ id: string; endpointId: string }> = [];
  for await (const wf of client.workflow.list({ query, pageSize: 100 })) {
    deliveries.push({ id: wf.workflowId, endpointId: wf.typedSearchAttributes.get(SA_ENDPOINT) ?? '' });
    if (deliveries.length >= EVENT_DELIVERIES_CAP) break;
  }
  deliveries.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  // Every delivery of one event carries the same envelope; the first one still kept answers.
  for (const d of deliveries) {
    const event = await deliveryEnvelope(client, d.id);
    if (event && event.id === eventId)
      return { eventId, type: event.type, occurredAt: event.occurredAt, body: event.body, deliveries };
  }
  return undefined;
}
