import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { DeliveryState } from '../shared/delivery-types.js';
import { NOT_A_DEAD_LETTER, retryDeadLetterUpdate } from '../shared/messages.js';
import {
  deliveriesQuery,
  listAll,
  ownedDelivery,
  presetIn,
  updateFailureType,
  type DeliveryRef,
} from './deliveries.js';
import { RUNNING, eq } from './visibility.js';

/** What a retried dead letter came to in its workflow. */
export type DeadLetterRetry =
  { ok: true; state: DeliveryState } | { ok: false; reason: 'not_a_dead_letter' | 'closed' };

/** What the dead-letter use cases (core/dead-letters.ts) need of the database. */
export interface DeadLetterStore {
  /** The delivery if it is the tenant's; undefined for a missing one and another tenant's alike. */
  ownedDelivery(tenantId: string, id: string): Promise<DeliveryRef | undefined>;
  /** Asks the delivery's workflow to take 3 more attempts. */
  retryDeadLetter(id: string): Promise<DeadLetterRetry>;
  /** Ids of the tenant's open dead letters of these presets, at most `cap`. */
  openDeadLetters(tenantId: string, presets: readonly string[], cap: number): Promise<string[]>;
}

export function temporalDeadLetterStore(client: Client): DeadLetterStore {
  return {
    ownedDelivery: async (tenantId, id) => (await ownedDelivery(client, tenantId, id))?.ref,
    async retryDeadLetter(id) {
      try {
        return { ok: true, state: await client.workflow.getHandle(id).executeUpdate(retryDeadLetterUpdate) };
      } catch (err) {
        if (updateFailureType(err) === NOT_A_DEAD_LETTER) return { ok: false, reason: 'not_a_dead_letter' };
        if (err instanceof WorkflowNotFoundError) return { ok: false, reason: 'closed' };
        throw err;
      }
    },
    openDeadLetters: async (tenantId, presets, cap) =>
      (
        await listAll(
          client,
          deliveriesQuery(tenantId, eq('HeraldStatus', 'exhausted'), RUNNING, presetIn(presets)),
          cap,
        )
      ).map((r) => r.id),
  };
}
