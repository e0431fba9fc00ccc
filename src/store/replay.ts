import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { DeliveryState } from '../shared/delivery-types.js';
import type { EndpointView } from '../shared/endpoint-types.js';
import { DELIVERY_IN_PROGRESS, replayDeliveryUpdate, type ReplayMode } from '../shared/messages.js';
import { SA_ENDPOINT } from '../shared/search-attributes.js';
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
import { reopenClosedDelivery } from './reopen.js';
import { CLOSES_AT_ROUND_END, RUNNING, eq, or } from './visibility.js';

export type DeliveryReplay =
  { ok: true; state: DeliveryState } | { ok: false; reason: 'in_progress' | 'closed' };

/** What the replay use cases (core/replay.ts) need of the database. */
export interface ReplayStore {
  /**
   * Deliveries of the tenant (one endpoint's, if named) of these presets, in these statuses,
   * that a replay can still reach: open, or closed at their round end (issue 16; whether
   * their preset's window is still open is `reopenable`'s to say).
   */
  openDeliveries(
    tenantId: string,
    statuses: readonly string[],
    presets: readonly string[],
    endpointId: string | undefined,
    cap: number,
  ): Promise<DeliveryRef[]>;
  deliveryState(ref: DeliveryRef): Promise<DeliveryState | undefined>;
  endpoint(tenantId: string, endpointId: string): Promise<EndpointView | undefined>;
  /** Opens a new round on a finished delivery (`mode`: what its preset's replay sends). */
  replayDelivery(ref: DeliveryRef, mode: ReplayMode): Promise<DeliveryReplay>;
}

/**
 * R-DT-REPLAY, R-BIRD-REPLAY: a new round on a finished delivery. A closed run (issue 16)
 * is reopened as a new run of the same id; a run started before issue 16 and still open
 * in its window takes the update, as before.
 */
export async function replayDeliveryRun(
  client: Client,
  ref: Pick<DeliveryRef, 'id' | 'runId' | 'running' | 'closesAtRoundEnd'>,
  mode: ReplayMode,
): Promise<DeliveryReplay> {
  if (!ref.running) {
    const r = await reopenClosedDelivery(
      client,
      ref,
      { kind: 'replay', mode },
      (s) => s.status !== 'pending' && s.status !== 'processing',
    );
    if (r.ok) return r;
    return { ok: false, reason: r.reason === 'refused' ? 'in_progress' : 'closed' };
  }
  // A run that closes at its round end and is still open is in its round.
  if (ref.closesAtRoundEnd) return { ok: false, reason: 'in_progress' };
  try {
    return {
      ok: true,
      state: await client.workflow
        .getHandle(ref.id)
        .executeUpdate(replayDeliveryUpdate, { args: [{ mode }] }),
    };
  } catch (err) {
    if (updateFailureType(err) === DELIVERY_IN_PROGRESS) return { ok: false, reason: 'in_progress' };
    if (err instanceof WorkflowNotFoundError) return { ok: false, reason: 'closed' };
    throw err;
  }
}

export function temporalReplayStore(client: Client, directory: Directory): ReplayStore {
  return {
    openDeliveries: (tenantId, statuses, presets, endpointId, cap) =>
      listAll(
        client,
        deliveriesQuery(
          tenantId,
          statusIn(statuses),
          or(RUNNING, CLOSES_AT_ROUND_END),
          presetIn(presets),
          endpointId && eq(SA_ENDPOINT, endpointId),
        ),
        cap,
      ),
    deliveryState: (ref) => deliveryState(client, ref.id, ref),
    endpoint: (tenantId, endpointId) => directory.endpoint(tenantId, endpointId),
    replayDelivery: (ref, mode) => replayDeliveryRun(client, ref, mode),
  };
}
