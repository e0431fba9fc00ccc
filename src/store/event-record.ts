import type { Client } from '@temporalio/client';
import type { DeliveryInput } from '../shared/delivery-types.js';
import {
  eventRecordOf,
  eventRecordOfDelivery,
  type EventInput,
  type EventRecord,
} from '../shared/event-types.js';
import { eventWorkflowId } from '../shared/ids.js';
import { startInputOf } from './delivery-envelope.js';

/**
 * The record of a published event, from the start input of whatever holds its id
 * (`eventWorkflowId`): its record workflow, or (issue 16 (4)) its first delivery. The input,
 * not the run's result: a holding delivery may run for a day, and a record still fanning out
 * for a Temporal-client publisher already knows what it will return. One history page, no
 * worker. `undefined` when Temporal has no such workflow (never started, or past retention).
 */
export async function heldEventRecord(
  client: Client,
  tenantId: string,
  eventId: string,
): Promise<EventRecord | undefined> {
  const input = await startInputOf<EventInput | DeliveryInput>(client, eventWorkflowId(tenantId, eventId));
  if (!input) return undefined;
  return 'deliveryId' in input ? eventRecordOfDelivery(input) : eventRecordOf(input);
}
