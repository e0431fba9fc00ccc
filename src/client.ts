// Publish events straight through Temporal, without the HTTP API: for backend services
// that already hold a Temporal connection. Uses the same event workflow as the API, so
// idempotency (R-IDEMP) and the durable fan-out are the same.
import { Client, Connection, WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { Config } from './config.js';
import { createPolicyResolver } from './deliveries/policy-resolver.js';
import type { PolicyOverrides, PresetName } from './policy/policy.js';
import type { DeliveryInput } from './shared/delivery-types.js';
import type { EventInput, EventRecord } from './shared/event-types.js';
import { deliveryIdFor, newEventId } from './shared/ids.js';
import { EVENT_WORKFLOW } from './shared/names.js';
import { SA_EVENT_ID, SA_EVENT_TYPE, SA_TENANT } from './shared/search-attributes.js';
import { dataConverterFor } from './temporal/data-converter.js';

export type { EventRecord } from './shared/event-types.js';

export interface PublishTarget {
  /** An endpoint id of the tenant (`ep_...`): delivered under that endpoint's rules and health. */
  endpointId: string;
  preset: PresetName;
  policy?: PolicyOverrides;
}

export interface PublishOptions {
  tenantId: string;
  type: string;
  payload: unknown;
  /** Idempotency: the same id publishes once (R-IDEMP). */
  eventId?: string;
  targets: PublishTarget[];
}

/**
 * A typed publisher over a Temporal client. Workflow `eventWorkflow`, id
 * `ev_<tenantId>_<eventId>`, task queue HERALD_TASK_QUEUE; see README "Publishing through
 * Temporal" for the input shape other SDKs must send.
 */
export class HeraldClient {
  private readonly resolve: ReturnType<typeof createPolicyResolver>;

  constructor(
    private readonly client: Client,
    private readonly config: Config,
  ) {
    this.resolve = createPolicyResolver(config);
  }

  static async connect(config: Config): Promise<HeraldClient> {
    if (!config.TEMPORAL_ADDRESS) throw new Error('TEMPORAL_ADDRESS is required');
    const connection = await Connection.connect({ address: config.TEMPORAL_ADDRESS });
    return new HeraldClient(
      new Client({ connection, namespace: config.TEMPORAL_NAMESPACE, dataConverter: dataConverterFor(config) }),
      config,
    );
  }

  async publish(o: PublishOptions): Promise<EventRecord> {
    const eventId = o.eventId ?? newEventId();
    const occurredAt = new Date().toISOString();
    const event = {
      id: eventId,
      type: o.type,
      occurredAt,
      body: JSON.stringify({ type: o.type, timestamp: occurredAt, data: o.payload }),
    };
    const deliveries: DeliveryInput[] = o.targets.map((t) => ({
      deliveryId: deliveryIdFor(o.tenantId, eventId, t.endpointId),
      tenantId: o.tenantId,
      endpointId: t.endpointId,
      event,
      policy: this.resolve(t.preset, t.policy),
      createdAt: occurredAt,
    }));
    const input: EventInput = { tenantId: o.tenantId, event, deliveries, skipped: [] };
    const workflowId = `ev_${o.tenantId}_${eventId}`;
    try {
      const handle = await this.client.workflow.start(EVENT_WORKFLOW, {
        workflowId,
        taskQueue: this.config.HERALD_TASK_QUEUE,
        args: [input],
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        typedSearchAttributes: [
          { key: SA_TENANT, value: o.tenantId },
          { key: SA_EVENT_TYPE, value: o.type },
          { key: SA_EVENT_ID, value: eventId },
        ],
      });
      return (await handle.result()) as EventRecord;
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      return (await this.client.workflow.getHandle(workflowId).result()) as EventRecord;
    }
  }
}
