/**
 * Issue 17, the default share (HERALD_ENDPOINT_MAX_SHARE): one endpoint may hold at most
 * `limit` of this worker's send slots. Matching's fairness orders waiting sends, but knows
 * nothing of how long a dispatched send holds its slot, so a slow receiver would otherwise
 * fill every slot. Per process on purpose: the share is of this worker's slots.
 */

/**
 * How long a send refused for its share waits, first in line, if no slot of its endpoint
 * frees here (the worker that refused it died, or its wake was lost). The wake is what
 * ends the wait; this only bounds a lost one, and is long so that waiters do not poll.
 */
export const SHARE_RECHECK_MS = 30_000;
/** The longest a refused send waits for a wake before it asks again, however far back it is. */
export const SHARE_RECHECK_MAX_MS = 10 * SHARE_RECHECK_MS;
/** The deferral code (R-RH-DEFER "busy concurrency slots"): no attempt spent. */
export const SHARE_DEFERRAL_CODE = 'concurrency_limited';

/** Slots one endpoint may hold: at least one, so a share never stops an endpoint outright. */
export function shareLimit(share: number, slots: number): number {
  return Math.max(1, Math.min(slots, Math.ceil(share * slots)));
}

/** In-flight sends per endpoint and, per endpoint, the deliveries refused meanwhile, oldest first. */
export class SendShare {
  private readonly inFlight = new Map<string, number>();
  private readonly waiting = new Map<string, Set<string>>();

  constructor(readonly limit: number) {}

  /**
   * Takes a slot of `endpointId` for `deliveryId`, or puts it on the wait list (false).
   * `always`: a send that holds a turn of its endpoint (a drain turn, a probe) is counted
   * but never refused, or the turn would stall every other delivery of the endpoint.
   */
  tryEnter(endpointId: string, deliveryId: string, always = false): boolean {
    if (!always && this.waitIfFull(endpointId, deliveryId)) return false;
    this.inFlight.set(endpointId, (this.inFlight.get(endpointId) ?? 0) + 1);
    const waiters = this.waiting.get(endpointId);
    waiters?.delete(deliveryId);
    if (waiters?.size === 0) this.waiting.delete(endpointId);
    return true;
  }

  /**
   * Puts `deliveryId` on the wait list when `endpointId` holds its whole share (true), as
   * tryEnter would refuse it; otherwise changes nothing (false).
   */
  waitIfFull(endpointId: string, deliveryId: string): boolean {
    if ((this.inFlight.get(endpointId) ?? 0) < this.limit) return false;
    const waiters = this.waiting.get(endpointId);
    if (waiters) waiters.add(deliveryId);
    else this.waiting.set(endpointId, new Set([deliveryId]));
    return true;
  }

  /**
   * How long `deliveryId`, refused for `endpointId`'s share, waits before it asks again if
   * no wake comes: SHARE_RECHECK_MS for the first in line, one more for every `limit`
   * waiting ahead of it (up to SHARE_RECHECK_MAX_MS). A freed slot wakes the oldest waiter,
   * so the one n places back is not woken before about n/limit sends end; asking before
   * then it is refused again (an activity and two workflow tasks for nothing). Nor do a
   * burst's waiters, refused within a second or two, all ask again in one wave.
   */
  recheckInMs(endpointId: string, deliveryId: string): number {
    // Past this many ahead the wait is at its cap: a burst of n refusals counts O(n * limit)
    // places, not O(n^2).
    const capped = Math.ceil((SHARE_RECHECK_MAX_MS / SHARE_RECHECK_MS - 1) * this.limit);
    let ahead = 0;
    for (const id of this.waiting.get(endpointId) ?? []) {
      if (id === deliveryId || ahead >= capped) break;
      ahead++;
    }
    return Math.min(SHARE_RECHECK_MAX_MS, Math.round(SHARE_RECHECK_MS * (1 + ahead / this.limit)));
  }

  /** The deferral a send refused for its share answers with (no attempt spent). */
  deferral(endpointId: string, deliveryId: string): { code: string; retryInMs: number } {
    return { code: SHARE_DEFERRAL_CODE, retryInMs: this.recheckInMs(endpointId, deliveryId) };
  }

  /** Gives back a slot taken by tryEnter. */
  leave(endpointId: string): void {
    const n = (this.inFlight.get(endpointId) ?? 0) - 1;
    if (n > 0) this.inFlight.set(endpointId, n);
    else this.inFlight.delete(endpointId);
  }

  /** The oldest delivery waiting for a slot of `endpointId`, taken off the list; only while a slot is free. */
  nextWaiter(endpointId: string): string | undefined {
    if ((this.inFlight.get(endpointId) ?? 0) >= this.limit) return undefined;
    const waiters = this.waiting.get(endpointId);
    if (!waiters) return undefined;
    const [first] = waiters;
    if (first === undefined) return undefined;
    waiters.delete(first);
    if (waiters.size === 0) this.waiting.delete(endpointId);
    return first;
  }

  /** For tests and metrics: sends of `endpointId` in flight here. */
  held(endpointId: string): number {
    return this.inFlight.get(endpointId) ?? 0;
  }
}
