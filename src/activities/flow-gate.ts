import type { Client } from '@temporalio/client';
import { CONCURRENCY_DEFERRAL_CODE, HOLD_MS, RATE_DEFERRAL_CODE, type Verdict } from '../flow/limiter.js';
import { leaseSecondsFor } from '../policy/presets.js';
import type { AttemptRequest } from '../shared/delivery-types.js';
import { acquirePermitUpdate, releasePermitSignal } from '../shared/endpoint-messages.js';
import type { EndpointSnapshot } from '../shared/endpoint-types.js';

/** What the send path does with a flow decision: send (and release after), or defer. */
export type FlowDecision =
  | { kind: 'send'; release?: () => void }
  | { kind: 'defer'; deferral: { code: string; retryInMs: number } };

export interface FlowGate {
  /**
   * Issue 17: asks the endpoint workflow for a permit when the snapshot carries flow options.
   * An endpoint without them is never asked: no round trip, no history event.
   */
  decide(req: AttemptRequest, snap: EndpointSnapshot): Promise<FlowDecision>;
}

/** Tries of one permit update (the endpoint may be continuing as new, or busy). */
const TRIES = 6;
/** When the endpoint cannot be asked at all, the delivery looks again after this (no attempt spent). */
export const PERMIT_UNAVAILABLE_RETRY_MS = 1_000;

interface Waiting {
  request: { deliveryId: string; leaseMs: number };
  resolve(v: Verdict | undefined): void;
}

/**
 * One permit update in flight per endpoint per worker: the sends that ask meanwhile go
 * together in the next one, in the order they asked. Temporal refuses more than about ten
 * updates in flight per workflow and 2,000 per run; batching keeps a burst far from both.
 */
class PermitBatcher {
  private readonly queues = new Map<string, Waiting[]>();
  private readonly busy = new Set<string>();

  constructor(
    private readonly client: Client,
    private readonly sleep: (ms: number) => Promise<unknown>,
  ) {}

  ask(endpointId: string, request: Waiting['request']): Promise<Verdict | undefined> {
    return new Promise((resolve) => {
      const q = this.queues.get(endpointId);
      if (q) q.push({ request, resolve });
      else this.queues.set(endpointId, [{ request, resolve }]);
      if (!this.busy.has(endpointId)) void this.flush(endpointId);
    });
  }

  private async flush(endpointId: string): Promise<void> {
    this.busy.add(endpointId);
    try {
      for (;;) {
        const batch = this.queues.get(endpointId);
        if (!batch?.length) return;
        this.queues.delete(endpointId);
        const verdicts = await this.send(endpointId, batch.map((w) => w.request));
        batch.forEach((w, i) => w.resolve(verdicts?.[i]));
      }
    } finally {
      this.busy.delete(endpointId);
    }
  }

  private async send(endpointId: string, requests: Waiting['request'][]): Promise<Verdict[] | undefined> {
    const handle = this.client.workflow.getHandle(endpointId);
    for (let i = 0; i < TRIES; i++) {
      try {
        return await handle.executeUpdate(acquirePermitUpdate, { args: [{ requests }] });
      } catch {
        await this.sleep(Math.round((50 << i) * (0.5 + Math.random())));
      }
    }
    return undefined;
  }
}

export function createFlowGate(client: Client, sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))): FlowGate {
  const batcher = new PermitBatcher(client, sleep);
  return {
    async decide(req, snap) {
      const flow = snap.flow;
      if (!flow || (!flow.rateLimit && flow.maxInFlight === undefined)) return { kind: 'send' };
      const leaseMs = leaseSecondsFor(req.preset, req.timeoutSeconds) * 1000;
      const v = await batcher.ask(req.endpointId, { deliveryId: req.deliveryId, leaseMs });
      if (!v)
        return {
          kind: 'defer',
          deferral: {
            code: flow.maxInFlight !== undefined ? CONCURRENCY_DEFERRAL_CODE : RATE_DEFERRAL_CODE,
            retryInMs: PERMIT_UNAVAILABLE_RETRY_MS,
          },
        };
      if (!v.granted) return { kind: 'defer', deferral: { code: v.code, retryInMs: v.retryInMs } };
      // The send's own time in the endpoint's schedule (at most HOLD_MS away): waited here, so
      // the spacing does not depend on how long the delivery's round trips take.
      if (v.sendAt !== undefined) {
        const wait = v.sendAt - Date.now();
        if (wait > 0) await sleep(Math.min(wait, HOLD_MS));
      }
      if (flow.maxInFlight === undefined) return { kind: 'send' };
      const handle = client.workflow.getHandle(req.endpointId);
      return {
        kind: 'send',
        // A lost release is covered by the lease; it never fails the send.
        release: () => void handle.signal(releasePermitSignal, { deliveryId: req.deliveryId }).catch(() => undefined),
      };
    },
  };
}
