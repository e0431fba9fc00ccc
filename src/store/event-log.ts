import type { Client } from '@temporalio/client';
import type { EventRecord } from '../shared/event-types.js';
import { EVENT_WORKFLOW } from '../shared/names.js';
import {
  EVENT_RECORD_DELIVERY,
  SA_CREATED_AT,
  SA_EVENT_ID,
  SA_EVENT_RECORD,
  SA_EVENT_TYPE,
  SA_TENANT,
} from '../shared/search-attributes.js';
import { eventFromDeliveries } from './delivery-envelope.js';
import { heldEventRecord } from './event-record.js';
import { newestFirst, type Started } from './newest-first.js';
import { NOT_CONTINUED, and, eq, ofType, or } from './visibility.js';

export interface EventRow {
  eventId: string;
  type: string;
  createdAt: string;
}

/**
 * Rows that stand for an event: its record workflow, or (issue 16 (4)) the delivery marked as
 * its record. A reopened delivery has a row per run, all of one event.
 */
const EVENT_ROWS = or(ofType(EVENT_WORKFLOW), eq(SA_EVENT_RECORD, EVENT_RECORD_DELIVERY));

/** The tenant's events, newest first, from the rows that stand for them in visibility. */
export async function listEvents(
  client: Client,
  tenantId: string,
  o: { type?: string; limit: number },
): Promise<EventRow[]> {
  const query = and(EVENT_ROWS, eq(SA_TENANT, tenantId), o.type && eq(SA_EVENT_TYPE, o.type), NOT_CONTINUED);
  const rows = await newestFirst((q, cap) => eventRows(client, q, cap), query, o.limit);
  return rows.map((r) => ({ eventId: r.id, type: r.type, createdAt: new Date(r.startMs).toISOString() }));
}

/**
 * One row per event in the window: every run of a reopened delivery has its event's id and
 * creation, so its rows fall in the same windows and one stands for all.
 */
async function eventRows(client: Client, query: string, cap: number) {
  const out: Array<Started & { type: string }> = [];
  const seen = new Set<string>();
  for await (const wf of client.workflow.list({ query, pageSize: Math.min(1000, cap) })) {
    const id = wf.typedSearchAttributes.get(SA_EVENT_ID) ?? '';
    if (seen.has(id)) continue;
    seen.add(id);
    // A record workflow is started as its event is accepted; a delivery keeps its event's
    // acceptance in HeraldCreatedAt through every reopen.
    const created = wf.typedSearchAttributes.get(SA_CREATED_AT) ?? wf.startTime;
    out.push({
      id,
      startMs: created.getTime(),
      type: wf.typedSearchAttributes.get(SA_EVENT_TYPE) ?? '',
    });
    if (out.length >= cap) break;
  }
  return out;
}

/**
 * The tenant's event, from what holds its id (its record workflow or its first delivery),
 * else from its deliveries, which carry its body as long as they live: an event published
 * without a record (issue 16 (4)), or one whose record is past the namespace retention
 * (issue 14.11). The first skipped nothing; for the second, what was skipped went with the
 * record, and the answer has no `skipped`. `undefined` when there is no such event; an
 * unreachable Temporal is thrown on (503), never a 404.
 */
export async function readEvent(
  client: Client,
  tenantId: string,
  eventId: string,
): Promise<EventRecord | Omit<EventRecord, 'skipped'> | undefined> {
  return (await heldEventRecord(client, tenantId, eventId)) ?? eventFromDeliveries(client, tenantId, eventId);
}
