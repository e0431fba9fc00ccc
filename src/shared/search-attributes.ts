import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';
import type { DeliveryInput } from './delivery-types.js';

// Herald's custom search attributes: Temporal visibility is Herald's index, so every
// list the API offers is a query over these keys. Operators use the same names in the Web UI.
export const SA_TENANT = defineSearchAttributeKey('HeraldTenant', SearchAttributeType.KEYWORD);
export const SA_ENDPOINT = defineSearchAttributeKey('HeraldEndpoint', SearchAttributeType.KEYWORD);
export const SA_EVENT_TYPE = defineSearchAttributeKey('HeraldEventType', SearchAttributeType.KEYWORD);
export const SA_EVENT_ID = defineSearchAttributeKey('HeraldEventId', SearchAttributeType.KEYWORD);
export const SA_STATUS = defineSearchAttributeKey('HeraldStatus', SearchAttributeType.KEYWORD);
export const SA_PRESET = defineSearchAttributeKey('HeraldPreset', SearchAttributeType.KEYWORD);
/**
 * Issue 14.14: an endpoint workflow's health status (active, degraded, paused, suspended,
 * disabled), so operators can find unhealthy endpoints in the Web UI. Kept apart from
 * HeraldStatus, which is a delivery's status: `HeraldStatus = 'paused'` must not match endpoints.
 */
export const SA_ENDPOINT_STATUS = defineSearchAttributeKey(
  'HeraldEndpointStatus',
  SearchAttributeType.KEYWORD,
);

/**
 * Issue 16: when the delivery was created (its input's `createdAt`), set at start on every
 * delivery run started since issue 16, all of which close at their round end (the API,
 * HeraldClient, the event fan-out and every reopen set `closesAtRoundEnd`). A dead-letter
 * retry or replay is a new run with a new StartTime, so lists order and filter by this
 * (newest first), never by StartTime. Runs started before issue 16 lack it (they never
 * reopen as a new run): their StartTime is their creation. Its presence is also what says a
 * closed run closed at its round end, not at the end of a recovery window (store/deliveries.ts
 * `refOf`).
 */
export const SA_CREATED_AT = defineSearchAttributeKey('HeraldCreatedAt', SearchAttributeType.DATETIME);

/**
 * Issue 16 (4): `delivery` on the one delivery that stands as its event's record, for an event
 * published without an `eventWorkflow` (core/publish-event.ts says when). The events list reads
 * these rows beside the record workflows'.
 */
export const SA_EVENT_RECORD = defineSearchAttributeKey('HeraldEventRecord', SearchAttributeType.KEYWORD);
export const EVENT_RECORD_DELIVERY = 'delivery';

export const HERALD_SEARCH_ATTRIBUTES = [
  SA_TENANT,
  SA_ENDPOINT,
  SA_EVENT_TYPE,
  SA_EVENT_ID,
  SA_STATUS,
  SA_PRESET,
  SA_ENDPOINT_STATUS,
  SA_CREATED_AT,
  SA_EVENT_RECORD,
];

/** The type as the Temporal CLI names it (`Keyword`, `Datetime`). */
export const cliTypeOf = (k: (typeof HERALD_SEARCH_ATTRIBUTES)[number]): string =>
  k.type === SearchAttributeType.DATETIME ? 'Datetime' : 'Keyword';

/** `name=Type` pairs as the Temporal CLI's `--search-attribute` flag takes them. */
export function searchAttributeCliArgs(): string[] {
  return HERALD_SEARCH_ATTRIBUTES.flatMap((k) => ['--search-attribute', `${k.name}=${cliTypeOf(k)}`]);
}

/** A new delivery's index entry: every list and filter of deliveries reads these. */
export function deliverySearchAttributes(d: DeliveryInput): SearchAttributePair[] {
  return [
    { key: SA_TENANT, value: d.tenantId },
    { key: SA_ENDPOINT, value: d.endpointId },
    { key: SA_EVENT_TYPE, value: d.event.type },
    { key: SA_EVENT_ID, value: d.event.id },
    { key: SA_PRESET, value: d.policy.preset },
    { key: SA_STATUS, value: d.deadLetterOnArrival ? 'exhausted' : 'pending' },
    { key: SA_CREATED_AT, value: new Date(d.createdAt) },
    ...(d.eventRecord ? [{ key: SA_EVENT_RECORD, value: EVENT_RECORD_DELIVERY }] : []),
  ];
}
