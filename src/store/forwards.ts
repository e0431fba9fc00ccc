import type { Client } from '@temporalio/client';
import { FORWARD_ID, startForward } from '../inbound/forwards.js';
import type { SourceCache } from '../inbound/source-cache.js';
import type { DeliveryInput, DeliveryState, DeliveryStatus } from '../shared/delivery-types.js';
import { FORWARD_WORKFLOW } from '../shared/names.js';
import { SA_ENDPOINT, SA_EVENT_TYPE, SA_TENANT } from '../shared/search-attributes.js';
import type { Destination } from '../shared/source-types.js';
import { deliveryState, newestDeliveries, refOf, statusIn, type DeliveryRef } from './deliveries.js';
import { startInputOf } from './delivery-envelope.js';
import { unlessNotFound } from './not-found.js';
import { and, eq, ofType } from './visibility.js';

/** Which of a tenant's forwards a listing wants. */
export interface ForwardFilter {
  sourceId?: string;
  destinationId?: string;
  statuses?: readonly DeliveryStatus[];
}

/** What the forward use cases (core/forwards.ts) need of the database. */
export interface ForwardStore {
  /** The forward if it is the tenant's; undefined for a missing one and another tenant's alike. */
  ownedForward(tenantId: string, id: string): Promise<DeliveryRef | undefined>;
  /** The forward's workflow state; undefined once its history is past retention. */
  state(id: string): Promise<DeliveryState | undefined>;
  /** The forward's input (the original request and body), from the first event of its history. */
  input(id: string): Promise<DeliveryInput | undefined>;
  /** Whether a forward with this id was ever started (and is still within retention). */
  exists(id: string): Promise<boolean>;
  /** The tenant's source's destination as it is configured now. */
  destination(tenantId: string, sourceId: string, destinationId: string): Promise<Destination | undefined>;
  /** Starts a forward; false when its id already exists. */
  start(input: DeliveryInput): Promise<boolean>;
  /** The tenant's forwards, newest first, at most `limit`. */
  newest(tenantId: string, filter: ForwardFilter, limit: number): Promise<DeliveryRef[]>;
}

function forwardsQuery(tenantId: string, f: ForwardFilter) {
  return and(
    ofType(FORWARD_WORKFLOW),
    eq(SA_TENANT, tenantId),
    f.sourceId && eq(SA_EVENT_TYPE, f.sourceId),
    f.destinationId && eq(SA_ENDPOINT, f.destinationId),
    f.statuses && statusIn(f.statuses),
  );
}

export function temporalForwardStore(deps: {
  client: Client;
  taskQueue: string;
  sources: SourceCache;
}): ForwardStore {
  const { client, taskQueue, sources } = deps;
  return {
    async ownedForward(tenantId, id) {
      if (!FORWARD_ID.test(id)) return undefined;
      // Only a forward that does not exist is undefined; an unreachable Temporal throws (503).
      const d = await unlessNotFound(client.workflow.getHandle(id).describe());
      if (!d || d.type !== FORWARD_WORKFLOW || d.typedSearchAttributes.get(SA_TENANT) !== tenantId)
        return undefined;
      return refOf(d);
    },
    state: (id) => deliveryState(client, id),
    input: (id) => startInputOf<DeliveryInput>(client, id),
    exists: async (id) => (await unlessNotFound(client.workflow.getHandle(id).describe())) !== undefined,
    async destination(tenantId, sourceId, destinationId) {
      // A forward names its source by public id (issue 13.7).
      const source = await sources.byPublicId(sourceId);
      if (!source || source.tenantId !== tenantId) return undefined;
      return source.destinations.find((d) => d.destinationId === destinationId);
    },
    start: (input) => startForward(client, taskQueue, input),
    newest: (tenantId, filter, limit) => newestDeliveries(client, forwardsQuery(tenantId, filter), limit),
  };
}
