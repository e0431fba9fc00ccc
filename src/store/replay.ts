import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { DeliveryState } from '../shared/delivery-types.js';
import type { EndpointView } from '../shared/endpoint-types.js';
import { DELIVERY_IN_PROGRESS, replayDeliveryUpdate } from '../shared/messages.js';
import type { Directory } from './directory.js';
import {
  deliveriesQuery,
  deliveryState,
  listAll,
  presetIn,
  statusIn,
  updateFailureType,
  type DeliveryRef,
} from './deliveries.js';
import { RUNNING, eq } from './visibility.js';

export type DeliveryReplay =
  { ok: true; state: DeliveryState } | { ok: false; reason: 'in_progress' | 'closed' };

/** What the replay use cases (core/replay.ts) need of the database. */
export interface ReplayStore {
  /** Open deliveries of the tenant (one endpoint's, if named) of these presets, in these statuses. */
  openDeliveries(
    tenantId: string,
    statuses: readonly string[],
    presets: readonly string[],
    endpointId: string | undefined,
    cap: number,
  ): Promise<DeliveryRef[]>;
  deliveryState(id: string): Promise<DeliveryState | undefined>;
  endpoint(tenantId: string, endpointId: string): Promise<EndpointView | undefined>;
  /** Opens a new round on a finished delivery (`mode`: what its preset's replay sends). */
  replayDelivery(id: string, mode: 'round' | 'single'): Promise<DeliveryReplay>;
}

export function temporalReplayStore(client: Client, directory: Directory): ReplayStore {
  return {
    openDeliveries: (tenantId, statuses, presets, endpointId, cap) =>
      listAll(
        client,
        deliveriesQuery(
          tenantId,
          statusIn(statuses),
          RUNNING,
          presetIn(presets),
          endpointId && eq('HeraldEndpoint', endpointId),
        ),
        cap,
      ),
    deliveryState: (id) => deliveryState(client, id),
    endpoint: (tenantId, endpointId) => directory.endpoint(tenantId, endpointId),
    async replayDelivery(id, mode) {
      try {
        return {
          ok: true,
          state: await client.workflow
            .getHandle(id)
            .executeUpdate(replayDeliveryUpdate, { args: [{ mode }] }),
        };
      } catch (err) {
        if (updateFailureType(err) === DELIVERY_IN_PROGRESS) return { ok: false, reason: 'in_progress' };
        if (err instanceof WorkflowNotFoundError) return { ok: false, reason: 'closed' };
        throw err;
      }
    },
  };
}
