import { WorkflowFailedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { EventRecord } from '../shared/event-types.js';
import { EVENT_WORKFLOW } from '../shared/names.js';
import { SA_EVENT_ID, SA_EVENT_TYPE, SA_TENANT } from '../shared/search-attributes.js';
import { eventFromDeliveries } from './delivery-envelope.js';
import { eventWorkflowId } from './events.js';
import { and, eq, ofType } from './visibility.js';

export interface EventRow {
  eventId: string;
  type: string;
  createdAt: string;
}

/** The tenant's events, newest first, from the event records' visibility. */
export async function listEvents(
  client: Client,
  tenantId: string,
  o: { type?: string; limit: number },
): Promise<EventRow[]> {
  const query = and(ofType(EVENT_WORKFLOW), eq(SA_TENANT, tenantId), o.type && eq(SA_EVENT_TYPE, o.type));
  const data: EventRow[] = [];
  for await (const wf of client.workflow.list({ query, pageSize: o.limit })) {
    data.push({
      eventId: wf.typedSearchAttributes.get(SA_EVENT_ID) ?? '',
      type: wf.typedSearchAttributes.get(SA_EVENT_TYPE) ?? '',
      createdAt: wf.startTime.toISOString(),
    });
    if (data.length >= o.limit) break;
  }
  return data;
}

/**
 * The tenant's event, from its record, else (issue 14.11: the record is past the namespace
 * retention, 30 days) from its deliveries, which carry its body as long as they live (Dong
 * Tien's stay open 90 days for replay); read back that way it has no `skipped`. `undefined`
 * when there is no such event; an unreachable Temporal is thrown on (503), never a 404.
 */
export async function readEvent(
  client: Client,
  tenantId: string,
  eventId: string,
): Promise<EventRecord | Omit<EventRecord, 'skipped'> | undefined> {
  const handle = client.workflow.getHandle<() => Promise<EventRecord>>(eventWorkflowId(tenantId, eventId));
  try {
    return await handle.result();
  } catch (err) {
    // A record that ended without a result (terminated) is no event.
    if (err instanceof WorkflowFailedError) return undefined;
    if (!(err instanceof WorkflowNotFoundError)) throw err;
    return eventFromDeliveries(client, tenantId, eventId);
  }
}
