import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { DeliveryState } from '../shared/delivery-types.js';
import { NOT_A_DEAD_LETTER, retryDeadLetterUpdate } from '../shared/messages.js';
import {
  deliveriesQuery,
  listAll,
  ownedDelivery,
  presetIn,
  reopenable,
  statusIn,
  updateFailureType,
  type DeliveryRef,
} from './deliveries.js';
import { reopenClosedDelivery } from './reopen.js';
import { CLOSES_AT_ROUND_END, RUNNING, or } from './visibility.js';

/** What a retried dead letter came to in its workflow. */
export type DeadLetterRetry =
  { ok: true; state: DeliveryState } | { ok: false; reason: 'not_a_dead_letter' | 'closed' };

/** What the dead-letter use cases (core/dead-letters.ts) need of the database. */
export interface DeadLetterStore {
  /** The delivery if it is the tenant's; undefined for a missing one and another tenant's alike. */
  ownedDelivery(tenantId: string, id: string): Promise<DeliveryRef | undefined>;
  /**
   * Gives the dead letter 3 more attempts: by update on a run still open (started before
   * issue 16, in its window), as a new run of the same id on a closed one (issue 16).
   */
  retryDeadLetter(ref: DeliveryRef): Promise<DeadLetterRetry>;
  /** Ids of the tenant's dead letters of these presets that may be retried at `nowMs`, at most `cap`. */
  retryableDeadLetters(
    tenantId: string,
    presets: readonly string[],
    cap: number,
    nowMs: number,
  ): Promise<string[]>;
}

export function temporalDeadLetterStore(client: Client): DeadLetterStore {
  return {
    ownedDelivery: async (tenantId, id) => (await ownedDelivery(client, tenantId, id))?.ref,
    async retryDeadLetter(ref) {
      if (!ref.running) {
        const r = await reopenClosedDelivery(
          client,
          ref,
          { kind: 'dlq_retry' },
          (s) => s.status === 'exhausted',
        );
        if (r.ok) return r;
        return { ok: false, reason: r.reason === 'refused' ? 'not_a_dead_letter' : 'closed' };
      }
      // A run that closes at its round end and is still open is in its round: no dead letter.
      if (ref.closesAtRoundEnd) return { ok: false, reason: 'not_a_dead_letter' };
      try {
        return {
          ok: true,
          state: await client.workflow.getHandle(ref.id).executeUpdate(retryDeadLetterUpdate),
        };
      } catch (err) {
        if (updateFailureType(err) === NOT_A_DEAD_LETTER) return { ok: false, reason: 'not_a_dead_letter' };
        if (err instanceof WorkflowNotFoundError) return { ok: false, reason: 'closed' };
        throw err;
      }
    },
    retryableDeadLetters: async (tenantId, presets, cap, nowMs) =>
      (
        await listAll(
          client,
          deliveriesQuery(
            tenantId,
            statusIn(['exhausted']),
            or(RUNNING, CLOSES_AT_ROUND_END),
            presetIn(presets),
          ),
          cap,
        )
      )
        .filter((r) => r.status === 'exhausted' && reopenable(r, nowMs))
        .map((r) => r.id),
  };
}
