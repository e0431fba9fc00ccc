// Publish events straight through Temporal, without the HTTP API: for backend services
// that already hold a Temporal connection. The same use case as `POST /v1/events`
// (core/publish-event.ts), so idempotency (R-IDEMP), the event-type filter, health
// admission and each endpoint's own preset are the same whichever way an event comes in.
import { Client, Connection } from '@temporalio/client';
import type { Config } from './config.js';
import { publishEvent, type PublishedEvent } from './core/publish-event.js';
import { settingsFrom } from './settings.js';
import { Directory } from './store/directory.js';
import { temporalPublishStore, type PublishStore } from './store/events.js';
import { dataConverterFor } from './temporal/data-converter.js';
import { newHeraldClient } from './temporal/herald-client.js';

export type { EventRecord } from './shared/event-types.js';
export type { PublishedEvent } from './core/publish-event.js';
export { Refusal } from './core/refusal.js';

export interface PublishTarget {
  /**
   * An endpoint id of the tenant (`ep_...`). It is delivered under that endpoint's preset,
   * policy, event-type filter and health, as the API does: the caller chooses none of them.
   */
  endpointId: string;
}

export interface PublishOptions {
  tenantId: string;
  type: string;
  payload: unknown;
  /** Idempotency: the same id publishes once (R-IDEMP). */
  eventId?: string;
  /** Only these endpoints of the tenant; every endpoint subscribed to `type` when left out. */
  targets?: PublishTarget[];
}

/**
 * A typed publisher over a Temporal client: the event's record is workflow `eventWorkflow`,
 * id `ev_<tenantId>_<eventId>`, and each delivery is started as the API starts it; see
 * README "Publishing through Temporal".
 */
export class HeraldClient {
  private readonly store: PublishStore;

  constructor(
    client: Client,
    private readonly config: Config,
  ) {
    this.store = temporalPublishStore({
      client,
      taskQueue: settingsFrom(config).taskQueue,
      directory: new Directory(client),
      startsInFlight: config.HERALD_STARTS_IN_FLIGHT,
    });
  }

  static async connect(config: Config): Promise<HeraldClient> {
    if (!config.TEMPORAL_ADDRESS) throw new Error('TEMPORAL_ADDRESS is required');
    const connection = await Connection.connect({ address: config.TEMPORAL_ADDRESS });
    return new HeraldClient(
      newHeraldClient({
        connection,
        namespace: config.TEMPORAL_NAMESPACE,
        dataConverter: dataConverterFor(config),
      }),
      config,
    );
  }

  /** Rejects with a `Refusal` (the API's `code`) when a rule refuses the event. */
  publish(o: PublishOptions): Promise<PublishedEvent> {
    return publishEvent(this.store, settingsFrom(this.config).publish, {
      tenantId: o.tenantId,
      eventId: o.eventId,
      type: o.type,
      payload: o.payload,
      endpointIds: o.targets?.map((t) => t.endpointId),
    });
  }
}
