import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { reportHoldFull } from '../deliveries/hold-overflow.js';
import { startDelivery, type StartDeliveryOptions } from '../deliveries/start-delivery.js';
import type { DeliveryInput } from '../shared/delivery-types.js';
import type { EndpointView } from '../shared/endpoint-types.js';
import type { EventInput, EventRecord } from '../shared/event-types.js';
import { eventWorkflowId } from '../shared/ids.js';
import { EVENT_WORKFLOW } from '../shared/names.js';
import { SA_EVENT_ID, SA_EVENT_TYPE, SA_TENANT } from '../shared/search-attributes.js';
import type { Directory } from './directory.js';
import { pendingDeliveries } from './visibility.js';
import { enqueueOrderedSignal } from '../shared/endpoint-messages.js';
import { turnStartDelayMs } from '../flow/limiter.js';
import { createTurnReserver } from './turn-reservations.js';
import { heldEventRecord } from './event-record.js';
import { startGateFor, type WaitingGauge } from '../flow/start-gate.js';

/** The start gate's key for event records (no endpoint id is this). */
const EVENT_RECORDS = 'event records';

/** What publishing an event needs of the database (core/publish-event.ts). */
export interface PublishStore {
  /** Every live endpoint of the tenant (a read that fails rejects: no endpoint is skipped silently). */
  liveEndpoints(tenantId: string): Promise<EndpointView[]>;
  /** One endpoint, read fresh, if it is the tenant's and not deleted. */
  ownedEndpoint(tenantId: string, endpointId: string): Promise<EndpointView | undefined>;
  /** Deliveries of the endpoint still waiting (Dong Tien's hold). */
  heldCount(endpointId: string): Promise<number>;
  /**
   * Starts the event's record, once per (tenant, event id): `false` when it already exists,
   * so the caller answers with the first request's record (R-IDEMP).
   */
  startEventRecord(input: EventInput): Promise<boolean>;
  /**
   * Issue 16 (4): starts the delivery that holds its event's id (`eventWorkflowId`) in place of
   * a record, once per (tenant, event id): `false` when the id is taken (by a record or such a
   * delivery), so the caller answers with the first request's record (R-IDEMP).
   */
  startRecordDelivery(delivery: DeliveryInput): Promise<boolean>;
  /** The record of an event already started: its record workflow's, or its first delivery's. */
  eventRecord(tenantId: string, eventId: string): Promise<EventRecord>;
  /**
   * Starts each delivery; one that already exists is left as it is. Issue 17: the ordered
   * ones (`ordered`) are first handed to their endpoint, in order, so its queue has them in
   * the order they were published before any of them can ask for its turn.
   */
  startDeliveries(deliveries: DeliveryInput[]): Promise<void>;
  /** Issue 14.10: tells a Dong Tien endpoint its hold overflowed. */
  reportHoldFull(endpointId: string, at: number): Promise<void>;
}

export function temporalPublishStore(deps: {
  client: Client;
  taskQueue: string;
  directory: Directory;
  /** Whether this endpoint's next delivery may start eagerly (absent: none does). */
  eagerStart?: (endpointId: string) => boolean;
  /** Issue 16 (7): starts in flight from this store, in turn by endpoint (absent or 0: no limit). */
  startsInFlight?: number;
  /** Counts the starts waiting for a place (the API's herald_delivery_starts_waiting). */
  startsWaiting?: WaitingGauge;
}): PublishStore {
  const { client, taskQueue, directory } = deps;
  const gate = startGateFor(deps.startsInFlight ?? 0, deps.startsWaiting);
  const gated = <T>(key: string, start: () => Promise<T>) => (gate ? gate.run(key, start) : start());
  /** Every delivery starts here, keyed by its endpoint; its options are read once its turn comes. */
  const start = (d: DeliveryInput, at: () => { input: DeliveryInput; opts: StartDeliveryOptions }) =>
    gated(d.endpointId, () => {
      const { input, opts } = at();
      return startDelivery(client, taskQueue, input, opts);
    });
  const reserver = createTurnReserver(client);
  return {
    liveEndpoints: (tenantId) => directory.endpoints(tenantId),
    ownedEndpoint: (tenantId, endpointId) => directory.endpoint(tenantId, endpointId),
    async heldCount(endpointId) {
      const r = await client.workflowService.countWorkflowExecutions({
        namespace: client.options.namespace,
        query: pendingDeliveries({ endpointId }),
      });
      return Number(r.count ?? 0);
    },
    async startEventRecord(input) {
      try {
        // Event records take their turns as one stream beside the endpoints'.
        await gated(EVENT_RECORDS, () =>
          client.workflow.start(EVENT_WORKFLOW, {
            workflowId: eventWorkflowId(input.tenantId, input.event.id),
            taskQueue,
            args: [input],
            workflowIdReusePolicy: 'REJECT_DUPLICATE',
            typedSearchAttributes: [
              { key: SA_TENANT, value: input.tenantId },
              { key: SA_EVENT_TYPE, value: input.event.type },
              { key: SA_EVENT_ID, value: input.event.id },
            ],
          }),
        );
        return true;
      } catch (err) {
        if (err instanceof WorkflowExecutionAlreadyStartedError) return false;
        throw err;
      }
    },
    async startRecordDelivery(d) {
      const r = await start(d, () => ({ input: d, opts: { eager: deps.eagerStart?.(d.endpointId) } }));
      return r.created;
    },
    async eventRecord(tenantId, eventId) {
      const record = await heldEventRecord(client, tenantId, eventId);
      // Asked only after the id was refused as taken: its holder exists.
      if (!record) throw new Error(`event ${eventId} was refused as a repeat, yet nothing holds its id`);
      return record;
    },
    async startDeliveries(deliveries) {
      await enqueueOrdered(client, deliveries);
      const reservedAt = Date.now();
      const turns = await reserver.reserve(deliveries.filter((d) => d.paced));
      await Promise.all(
        deliveries.map((d) => {
          const sendAt = turns.get(d.deliveryId);
          return start(d, () => {
            const startDelayMs = sendAt === undefined ? 0 : turnStartDelayMs(sendAt, Date.now());
            return startDelayMs > 0
              ? { input: { ...d, pacedTurn: { reservedAt, sendAt: sendAt! } }, opts: { startDelayMs } }
              : { input: d, opts: { eager: deps.eagerStart?.(d.endpointId) } };
          });
        }),
      );
    },
    reportHoldFull: (endpointId, at) => reportHoldFull(client, endpointId, at),
  };
}

/**
 * Issue 17 (`ordering: 'fifo'`): one signal per ordered endpoint with the ids of this publish,
 * before they start. Events published one after the other are queued in publish order;
 * concurrent publishes in the order the endpoint's signals were accepted. A failure fails the
 * publish (503): a retry of it with the same event id queues them again (a no-op for those
 * already queued). Only ordered endpoints get this round trip.
 */
async function enqueueOrdered(client: Client, deliveries: readonly DeliveryInput[]): Promise<void> {
  const byEndpoint = new Map<string, string[]>();
  for (const d of deliveries) {
    if (!d.ordered) continue;
    const ids = byEndpoint.get(d.endpointId);
    if (ids) ids.push(d.deliveryId);
    else byEndpoint.set(d.endpointId, [d.deliveryId]);
  }
  await Promise.all(
    [...byEndpoint].map(([endpointId, deliveryIds]) =>
      client.workflow
        .getHandle(endpointId)
        .signal(enqueueOrderedSignal, { deliveryIds })
        // An endpoint deleted since the list was read: its deliveries end as it is gone.
        .catch((err: unknown) => {
          if (!(err instanceof WorkflowNotFoundError)) throw err;
        }),
    ),
  );
}
