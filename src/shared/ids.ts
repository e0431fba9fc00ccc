import { createHash, randomUUID } from 'node:crypto';

/**
 * A delivery id derived from (tenant, event, endpoint): publishing the same event twice
 * maps to the same Temporal workflow id, so Temporal itself refuses the duplicate (R-IDEMP).
 */
export function deliveryIdFor(tenantId: string, eventId: string, endpointKey: string): string {
  const h = createHash('sha256').update(`${tenantId}\n${eventId}\n${endpointKey}`).digest('base64url');
  return `dlv_${h.slice(0, 26)}`;
}

export function newEventId(): string {
  return `msg_${randomUUID().replace(/-/g, '')}`;
}

/**
 * The workflow id that holds an event id for its tenant (R-IDEMP): the event's record
 * workflow, or (issue 16 (4)) the first delivery of an event its publisher named.
 */
export const eventWorkflowId = (tenantId: string, eventId: string) => `ev_${tenantId}_${eventId}`;

/**
 * Id patterns: a lookup by an id of the wrong shape answers "not found" without asking Temporal.
 * A delivery's id is `dlv_...`, or its event's `ev_<tenant>_<event id>` when it holds the
 * event id of its publisher (issue 16 (4)).
 */
export const DELIVERY_ID = /^(?:dlv_[A-Za-z0-9_-]+|ev_tn_[A-Za-z0-9]+_[A-Za-z0-9_.:-]+)$/;
export const ENDPOINT_ID = /^ep_[A-Za-z0-9]+$/;
