import { ServiceError, isGrpcServiceError, type Client } from '@temporalio/client';
import { deferredAtPublish, firstRound } from '../policy/next-step.js';
import { RATE_DEFERRAL_CODE } from '../flow/limiter.js';
import type { DeliveryInput, DeliveryState } from '../shared/delivery-types.js';
import { startInputOf } from './delivery-envelope.js';

const GRPC_FAILED_PRECONDITION = 9;

/**
 * Temporal's answer to a query of a run whose first workflow task is not scheduled yet: a
 * delivery started with a delay (issue 17: its rate-limited turn was reserved at publish).
 */
export function isDelayedStart(err: unknown): boolean {
  const cause = err instanceof ServiceError ? err.cause : err;
  return (
    isGrpcServiceError(cause) &&
    cause.code === GRPC_FAILED_PRECONDITION &&
    /not scheduled yet/i.test(cause.details ?? cause.message)
  );
}

/**
 * What a delivery that has not started yet holds: its first round, and (when its turn was
 * reserved at publish) the deferral row its run will begin with; read from its start input,
 * without a worker.
 */
export async function delayedState(client: Client, id: string): Promise<DeliveryState | undefined> {
  const input = await startInputOf<DeliveryInput>(client, id);
  if (!input) return undefined;
  const round = firstRound(
    input.policy,
    { deliveryId: input.deliveryId, eventId: input.event.id, endpointId: input.endpointId },
    Date.parse(input.createdAt),
  );
  return (input.pacedTurn ? deferredAtPublish(round, input.pacedTurn, RATE_DEFERRAL_CODE) : round).delivery;
}
