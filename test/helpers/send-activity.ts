// What the send activity's unit tests share: an endpoint on a loopback receiver, a request for
// its first attempt, and activities allowed to send to loopback.
import { createActivities, type ActivityDeps } from '../../src/activities/index.js';
import type { PinnedDispatchers } from '../../src/activities/pinned-dispatcher.js';
import { initialHealth, type PresetName } from '../../src/health/index.js';
import { parseCidrList } from '../../src/policy/address.js';
import type { AttemptRequest } from '../../src/shared/delivery-types.js';
import type { EndpointSnapshot } from '../../src/shared/endpoint-types.js';
import { generateSecret } from '../../src/signing/standard-webhooks.js';

/** An endpoint whose URL is `${base}/${endpointId}`, healthy. */
export function loopbackEndpoint(
  base: string,
  endpointId: string,
  tenantId: string,
  opts: { preset?: PresetName; deleted?: boolean } = {},
): EndpointSnapshot {
  return {
    endpointId,
    tenantId,
    preset: opts.preset ?? 'standard',
    url: `${base}/${endpointId}`,
    secrets: [generateSecret()],
    health: initialHealth(),
    deleted: opts.deleted ?? false,
  };
}

/** The first attempt of delivery `deliveryId` (event `eventId`) to `endpoint`, due now. */
export function firstAttemptTo(
  endpoint: EndpointSnapshot,
  deliveryId: string,
  eventId: string,
  extra: Partial<AttemptRequest> = {},
): AttemptRequest {
  return {
    deliveryId,
    tenantId: endpoint.tenantId,
    endpointId: endpoint.endpointId,
    attempt: 1,
    event: { id: eventId, type: 'send.test', occurredAt: new Date().toISOString(), body: '{}' },
    createdAt: new Date().toISOString(),
    timeoutSeconds: 30,
    deliveryIdHeader: 'X-Delivery',
    preset: endpoint.preset,
    scheduledAt: Date.now(),
    ...extra,
  };
}

/** The send activities, allowed to send to 127.0.0.1 (over plain HTTP) and nowhere else. */
export function loopbackActivities(
  dispatchers: PinnedDispatchers,
  deps: Omit<ActivityDeps, 'dispatchers' | 'allowAddresses' | 'allowHttpHosts' | 'now'>,
) {
  return createActivities({
    dispatchers,
    allowAddresses: parseCidrList(['127.0.0.1/32']),
    allowHttpHosts: ['127.0.0.1'],
    now: () => new Date(),
    ...deps,
  });
}
