// Messages of the endpoint workflow, shared by the API, the deliveries and the workflow.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { HealthInput, HealthState } from '../health/types.js';
import type { EndpointPatch, EndpointSnapshot, EndpointView, TestResult } from './endpoint-types.js';
import type { ChallengeResult, VerificationView } from './verification.js';

export const endpointSnapshotQuery = defineQuery<EndpointSnapshot>('endpointSnapshot');
export const endpointViewQuery = defineQuery<EndpointView>('endpointView');

/** A delivery outcome that changes health (see shouldReport); never sent for plain successes. */
export const reportHealthSignal = defineSignal<[HealthInput]>('reportHealth');

export const updateEndpointUpdate = defineUpdate<EndpointView, [EndpointPatch]>('updateEndpoint');
export const pauseEndpointUpdate = defineUpdate<EndpointView>('pauseEndpoint');
/** Resume after a pause, or enable after a disable/suspension (Smengo: after a good test). */
export const resumeEndpointUpdate = defineUpdate<EndpointView>('resumeEndpoint');
export const disableEndpointUpdate = defineUpdate<EndpointView, [{ reason?: string }]>('disableEndpoint');
export const rotateSecretUpdate = defineUpdate<EndpointView, [{ secret: string; graceSeconds: number }]>('rotateSecret');
export const sendTestUpdate = defineUpdate<TestResult>('sendTest');
export const deleteEndpointUpdate = defineUpdate<EndpointView>('deleteEndpoint');
/** Railhook's half-open breaker lets one delivery through; it asks for the turn. */
export const claimProbeUpdate = defineUpdate<HealthState, [{ deliveryId: string }]>('claimProbe');

/**
 * Issue 14.15: sends the challenge again and answers once it is answered. No `result` when
 * nothing was sent (mode `none`, or the endpoint is deleted).
 */
export const verifyEndpointUpdate = defineUpdate<{
  verification: VerificationView;
  result?: ChallengeResult;
}>('verifyEndpoint');

/**
 * Issue 17: a delivery of an endpoint with flow options (rate limit, maxInFlight, FIFO) asks
 * for its send here, from the send activity. Granted, or the deferral to record with the
 * exact time to come back (a reserved token), or a wait ended by a wake (a slot, a turn).
 * A worker sends the requests of all its sends waiting meanwhile as one update, in order.
 */
export const acquirePermitUpdate = defineUpdate<
  Array<{ granted: true; sendAt?: number } | { granted: false; code: string; retryInMs: number }>,
  [{ requests: Array<{
      deliveryId: string;
      leaseMs: number;
      holder?: string;
      leadMs?: number;
      holdMs?: number;
      earlyMs?: number;
      ordered?: true;
    }> }]
>('acquirePermit');
/**
 * Issue 17: the publish path reserves the turns of the deliveries it is about to start to a
 * rate-limited endpoint, in order: each one's send time (workflow clock, ms), or null when
 * the endpoint has no rate limit (any more) or is deleted. One update for a publish's whole
 * batch; the API asks with one in flight per endpoint.
 */
export const reserveTurnsUpdate = defineUpdate<Array<number | null>, [{ deliveryIds: string[] }]>('reserveTurns');
/**
 * Issue 17 (`ordering: 'fifo'`): the publish path hands over the ordered deliveries it is
 * about to start, in publish order, before it starts them (their acceptance order).
 */
export const enqueueOrderedSignal = defineSignal<[{ deliveryIds: string[] }]>('enqueueOrdered');
/** Issue 17: an ordered delivery's round ended (any final status): the next one may go. */
export const orderDoneSignal = defineSignal<[{ deliveryId: string }]>('orderDone');
/** Issue 17: a send holding a slot (maxInFlight) ended; the oldest waiter is woken. */
export const releasePermitSignal = defineSignal<[{ deliveryId: string; holder?: string }]>('releasePermit');
