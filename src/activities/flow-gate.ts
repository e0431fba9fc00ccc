import type { Client } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import {
  ACTIVITY_EARLY_MS,
  ACTIVITY_HOLD_MS,
  CONCURRENCY_DEFERRAL_CODE,
  HOLD_MS,
  ORDER_DEFERRAL_CODE,
  RATE_DEFERRAL_CODE,
  lateBoundMs,
  type Verdict,
} from '../flow/limiter.js';
import { leaseSecondsFor } from '../policy/presets.js';
import type { AttemptRequest } from '../shared/delivery-types.js';
import { acquirePermitUpdate, releasePermitSignal } from '../shared/endpoint-messages.js';
import type { EndpointSnapshot } from '../shared/endpoint-types.js';
import { acquireTenantPermitUpdate } from '../shared/tenant-messages.js';
import type { TenantView } from '../shared/tenant-types.js';

type PermitUpdate = typeof acquirePermitUpdate | typeof acquireTenantPermitUpdate;

/** What the send path does with a flow decision: send (and release after), or defer. */
export type FlowDecision =
  | { kind: 'send'; release?: () => void }
  | { kind: 'defer'; deferral: { code: string; retryInMs: number } };

export interface FlowGate {
  /**
   * Issue 17: asks the endpoint workflow for a permit when the snapshot carries flow options.
   * An endpoint without them is never asked: no round trip, no history event.
   */
  decide(req: AttemptRequest, snap: EndpointSnapshot, tenant?: TenantView): Promise<FlowDecision>;
}

/** Tries of one permit update (the endpoint may be continuing as new, or busy). */
const TRIES = 6;
/** When the endpoint cannot be asked at all, the delivery looks again after this (no attempt spent). */
export const PERMIT_UNAVAILABLE_RETRY_MS = 1_000;
/** A granted turn this far in the past (at most; half a step at high rates) when its answer arrives or its timer fires is not used. */
export const LATE_MS = 250;

interface Waiting {
  request: {
    deliveryId: string;
    leaseMs: number;
    holder?: string;
    leadMs?: number;
    holdMs: number;
    earlyMs: number;
    ordered?: true;
  };
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
  /** How long the last answer from each workflow took: a grant is asked with that much lead. */
  private readonly roundTrip = new Map<string, number>();

  constructor(
    private readonly client: Client,
    private readonly sleep: (ms: number) => Promise<unknown>,
  ) {}

  ask(workflowId: string, update: PermitUpdate, request: Waiting['request']): Promise<Verdict | undefined> {
    return new Promise((resolve) => {
      const q = this.queues.get(workflowId);
      if (q) q.push({ request, resolve });
      else this.queues.set(workflowId, [{ request, resolve }]);
      if (!this.busy.has(workflowId)) void this.flush(workflowId, update);
    });
  }

  private async flush(workflowId: string, update: PermitUpdate): Promise<void> {
    this.busy.add(workflowId);
    try {
      for (;;) {
        const batch = this.queues.get(workflowId);
        if (!batch?.length) return;
        this.queues.delete(workflowId);
        const verdicts = await this.send(workflowId, update, batch.map((w) => w.request));
        batch.forEach((w, i) => w.resolve(verdicts?.[i]));
      }
    } finally {
      this.busy.delete(workflowId);
    }
  }

  private async send(workflowId: string, update: PermitUpdate, requests: Waiting['request'][]): Promise<Verdict[] | undefined> {
    const handle = this.client.workflow.getHandle(workflowId);
    // A turn granted sooner than the answer can arrive would be missed on arrival: the
    // workflow is told how long the last answer took, half as much again.
    const lead = this.roundTrip.get(workflowId);
    const asked = lead !== undefined ? requests.map((r) => ({ ...r, leadMs: Math.ceil(lead * 1.5) })) : requests;
    for (let i = 0; i < TRIES; i++) {
      try {
        const t0 = Date.now();
        const out = await handle.executeUpdate(update, { args: [{ requests: asked }] });
        this.roundTrip.set(workflowId, Date.now() - t0);
        return out;
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
    async decide(req, snap, tenant) {
      const flow = snap.flow ?? {};
      const leaseMs = leaseSecondsFor(req.preset, req.timeoutSeconds) * 1000;
      // This send's own name for its lease (a repeat of the same delivery is another send).
      const holder = flow.maxInFlight !== undefined ? randomUUID().slice(0, 8) : undefined;
      // Issue 17: only a delivery accepted while the endpoint was ordered takes part in the
      // order (one created before `ordering: 'fifo'` was set goes as it always did).
      const ordered = req.ordered === true && flow.ordering === 'fifo';
      // An inline first attempt waits for its turn inside its local activity's grace; the
      // activity (and every return from a deferral) within its lease's (flow/limiter.ts).
      const holdMs = req.inline ? HOLD_MS : ACTIVITY_HOLD_MS;
      const request = {
        deliveryId: req.deliveryId,
        leaseMs,
        holdMs,
        earlyMs: ACTIVITY_EARLY_MS,
        ...(holder ? { holder } : {}),
        ...(ordered ? { ordered: true as const } : {}),
      };
      let sendAt: number | undefined;
      // A turn whose time had passed when the answer came (a slow update): sending now would
      // bunch it with the turns after it, so it asks again instead (no attempt spent).
      // Late by half a (paced) step or more, it would share a moment with the next turn.
      const lateMs = Math.min(LATE_MS, ...[tenant?.rateLimit, flow.rateLimit].map((r) => (r ? lateBoundMs(r) : Infinity)));
      const missed = (at: number | undefined) => at !== undefined && Date.now() - at > lateMs;
      // The tenant's limit first: a send it defers holds no slot of the endpoint.
      if (tenant?.rateLimit) {
        const t = await batcher.ask(req.tenantId, acquireTenantPermitUpdate, request);
        if (!t) return { kind: 'defer', deferral: { code: RATE_DEFERRAL_CODE, retryInMs: PERMIT_UNAVAILABLE_RETRY_MS } };
        if (!t.granted) return { kind: 'defer', deferral: { code: t.code, retryInMs: t.retryInMs } };
        if (missed(t.sendAt)) return { kind: 'defer', deferral: { code: RATE_DEFERRAL_CODE, retryInMs: 1 } };
        sendAt = t.sendAt;
      }
      const waitForTurn = async (at: number | undefined) => {
        const wait = (at ?? 0) - Date.now();
        if (wait > 0) await sleep(Math.min(wait, holdMs));
      };
      const late = { kind: 'defer', deferral: { code: RATE_DEFERRAL_CODE, retryInMs: 1 } } as const;
      // Issue 17: the turn the publish reserved, when the rate limit is the endpoint's only
      // option: the send waits for it and goes without asking again (no update). One that
      // starts after its turn asks, and is scheduled afresh (flow/limiter.ts).
      if (
        req.turnAt !== undefined &&
        !tenant?.rateLimit &&
        flow.rateLimit &&
        flow.maxInFlight === undefined &&
        !ordered &&
        req.turnAt - Date.now() <= holdMs &&
        !missed(req.turnAt)
      ) {
        await waitForTurn(req.turnAt);
        if (!missed(req.turnAt)) return { kind: 'send' };
      }
      if (!flow.rateLimit && flow.maxInFlight === undefined && !ordered) {
        await waitForTurn(sendAt);
        // A timer that fired late (this process was busy) would bunch its send with later turns.
        return missed(sendAt) ? late : { kind: 'send' };
      }
      const v = await batcher.ask(req.endpointId, acquirePermitUpdate, request);
      if (!v)
        return {
          kind: 'defer',
          deferral: {
            code:
              flow.maxInFlight !== undefined
                ? CONCURRENCY_DEFERRAL_CODE
                : flow.rateLimit
                  ? RATE_DEFERRAL_CODE
                  : ORDER_DEFERRAL_CODE,
            retryInMs: PERMIT_UNAVAILABLE_RETRY_MS,
          },
        };
      if (!v.granted) return { kind: 'defer', deferral: { code: v.code, retryInMs: v.retryInMs } };
      if (missed(v.sendAt) && flow.maxInFlight === undefined)
        return { kind: 'defer', deferral: { code: RATE_DEFERRAL_CODE, retryInMs: 1 } };
      // The send's own time in the endpoint's schedule (at most HOLD_MS away): waited here, so
      // the spacing does not depend on how long the delivery's round trips take.
      const turn = Math.max(v.sendAt ?? 0, sendAt ?? 0) || undefined;
      await waitForTurn(turn);
      const handle = client.workflow.getHandle(req.endpointId);
      // A lost release is covered by the lease; it never fails the send.
      const release = () => void handle.signal(releasePermitSignal, { deliveryId: req.deliveryId, holder }).catch(() => undefined);
      if (missed(turn)) {
        if (flow.maxInFlight !== undefined) release();
        return late;
      }
      if (flow.maxInFlight === undefined) return { kind: 'send' };
      return { kind: 'send', release };
    },
  };
}
