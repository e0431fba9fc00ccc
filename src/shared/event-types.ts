import type { DeliveryInput, EventEnvelope } from './delivery-types.js';

export interface EventInput {
  tenantId: string;
  event: EventEnvelope;
  /** Deliveries to start, decided by the API from the tenant's endpoints at publish time. */
  deliveries: Array<Omit<DeliveryInput, 'event'> & { event?: DeliveryInput['event'] }>;
  /** Endpoints that matched but take no new events now (paused, disabled), and why. */
  skipped: Array<{ endpointId: string; reason: string }>;
  /**
   * The caller (the API) started every delivery itself before starting this workflow, so
   * the workflow only keeps the record. Callers that leave it out get the durable fan-out.
   */
  deliveriesStarted?: boolean;
}

/** What `POST /v1/events` answers, and answers again for the same event id (R-IDEMP). */
export interface EventRecord {
  eventId: string;
  type: string;
  occurredAt: string;
  /** The exact JSON sent to receivers. */
  body: string;
  deliveries: Array<{ id: string; endpointId: string }>;
  skipped: Array<{ endpointId: string; reason: string }>;
  /**
   * When the caller started the deliveries itself (`deliveriesStarted`): what it started,
   * so a repeated publish can finish a fan-out the first request left half done. Kept in
   * the result, which the server returns without asking a worker.
   */
  started?: EventInput['deliveries'];
}

/** The record an event answers with, derived from what was accepted. */
export function eventRecordOf(input: EventInput): EventRecord {
  return {
    eventId: input.event.id,
    type: input.event.type,
    occurredAt: input.event.occurredAt,
    body: input.event.body,
    deliveries: input.deliveries.map((d) => ({ id: d.deliveryId, endpointId: d.endpointId })),
    skipped: input.skipped,
    ...(input.deliveriesStarted ? { started: input.deliveries } : {}),
  };
}

/**
 * Issue 16 (4): the record of an event whose first delivery holds its id (`siblings`). It
 * skipped no endpoint: such an event is only published that way when nothing was skipped.
 */
export function eventRecordOfDelivery(d: DeliveryInput): EventRecord {
  const siblings = d.siblings ?? [];
  return {
    eventId: d.event.id,
    type: d.event.type,
    occurredAt: d.event.occurredAt,
    body: d.event.body,
    deliveries: [d, ...siblings].map((s) => ({ id: s.deliveryId, endpointId: s.endpointId })),
    skipped: [],
    started: siblings,
  };
}
