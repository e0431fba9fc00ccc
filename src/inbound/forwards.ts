import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { createHash, randomBytes } from 'node:crypto';
import type { DeliveryPolicy } from '../policy/policy.js';
import type { DeliveryInput, DeliveryTarget } from '../shared/delivery-types.js';
import { FORWARD_WORKFLOW } from '../shared/names.js';
import { forwardSearchAttributes } from '../shared/forward-attributes.js';
import type { Destination, ForwardRequest } from '../shared/source-types.js';

export { forwardSearchAttributes } from '../shared/forward-attributes.js';

/** `event.type` of every forward: the envelope type is not what a sender sent, only a label. */
export const FORWARD_EVENT_TYPE = 'inbound';

/** Unguessable ids: the ingest URL is public, so a source id is its only protection. */
export const newSourceId = () => `src_${randomBytes(16).toString('hex')}`;
export const newDestinationId = () => `dst_${randomBytes(12).toString('hex')}`;
export const newRequestId = () => `req_${randomBytes(12).toString('hex')}`;
export const newForwardId = () => `fwd_${randomBytes(16).toString('hex')}`;

/**
 * The id of the forward a dead-letter retry makes from `forwardId`: derived, so retrying
 * the same dead letter twice is refused by Temporal instead of forwarding it twice.
 */
export const retryForwardId = (forwardId: string) =>
  `fwd_${createHash('sha256').update(`${forwardId}\nretry`).digest('hex').slice(0, 32)}`;

export const SOURCE_ID = /^src_[a-f0-9]{32}$/;
export const DESTINATION_ID = /^dst_[a-f0-9]{24}$/;
export const FORWARD_ID = /^fwd_[a-f0-9]{32}$/;

export interface ForwardArgs {
  forwardId: string;
  tenantId: string;
  destination: Destination;
  /** The inbound policy with this destination's overrides (R-RH-CUSTOM) and the operator's cap. */
  policy: DeliveryPolicy;
  /** Everything about the received request except the destination. */
  request: Omit<ForwardRequest, 'destinationId'>;
  body: string;
  /** When the lifetime clock starts: now, for a new forward and for a dead-letter retry alike. */
  createdAt: string;
}

/** One received request to one destination, as the delivery workflow's input. */
export function forwardInput(a: ForwardArgs): DeliveryInput {
  const target: DeliveryTarget = {
    url: a.destination.url,
    secrets: [],
    forward: { ...a.request, destinationId: a.destination.destinationId },
    // R-RH-TRANSFORM: the send path applies it (a failure retries; the original is never sent).
    ...(a.destination.transformation ? { transformation: a.destination.transformation } : {}),
  };
  return {
    deliveryId: a.forwardId,
    tenantId: a.tenantId,
    endpointId: a.destination.destinationId,
    event: {
      id: a.request.requestId,
      type: FORWARD_EVENT_TYPE,
      occurredAt: a.request.receivedAt,
      body: a.body,
    },
    target,
    policy: a.policy,
    createdAt: a.createdAt,
  };
}

/**
 * Starts one forward. Resolves once Temporal has durably recorded the workflow: that is
 * when the ingest route may answer the sender. False when the id already exists.
 */
export async function startForward(
  client: Client,
  taskQueue: string,
  input: DeliveryInput,
): Promise<boolean> {
  try {
    await client.workflow.start(FORWARD_WORKFLOW, {
      workflowId: input.deliveryId,
      taskQueue,
      args: [input],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: forwardSearchAttributes(input),
    });
    return true;
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return false;
    throw err;
  }
}
