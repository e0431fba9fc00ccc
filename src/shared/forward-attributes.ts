import type { SearchAttributePair } from '@temporalio/common';
import type { DeliveryInput } from './delivery-types.js';
import {
  SA_ENDPOINT,
  SA_EVENT_ID,
  SA_EVENT_TYPE,
  SA_PRESET,
  SA_STATUS,
  SA_TENANT,
} from './search-attributes.js';

/**
 * A forward's index entry (R-RH-INBOUND). The keys are the delivery ones, read for forwards
 * as: HeraldEndpoint = destination id, HeraldEventType = source id, HeraldEventId = request id.
 */
export function forwardSearchAttributes(input: DeliveryInput): SearchAttributePair[] {
  return [
    { key: SA_TENANT, value: input.tenantId },
    { key: SA_ENDPOINT, value: input.endpointId },
    { key: SA_EVENT_TYPE, value: input.target?.forward?.sourceId ?? '' },
    { key: SA_EVENT_ID, value: input.event.id },
    { key: SA_PRESET, value: input.policy.preset },
    { key: SA_STATUS, value: 'pending' },
  ];
}
