import { shareLimit } from '../policy/flow-share.js';

/**
 * Issue 16: the first attempt runs inside the delivery's first workflow task (a local
 * activity), and that task holds one of the worker's workflow-task slots until the attempt
 * ends. A slow receiver would otherwise fill those slots and hold back every other
 * workflow's tasks, first attempts of other endpoints included. So only `total` inline
 * attempts run at once on this worker, at most `perEndpoint` of one endpoint; a first attempt
 * refused here goes out as the regular send activity instead (its slots, its share), and
 * spends nothing.
 *
 * Sent as the activity, a first attempt costs a second workflow task, an activity task and
 * their history events. So a refused one waits up to `maxWaitMs` for a slot, but only while
 * a send holding the slots it needs started less than `maxWaitMs` ago: a fast receiver's
 * sends end within that and hand their slot on, a slow receiver's are soon all older and
 * its next first attempts go out as the activity at once. At most `maxWaiters` wait, each
 * holding its workflow-task slot, so the slots beyond `total` never all go to waiting.
 */
export class InlineSlots {
  /** Start times of the inline sends in flight, per endpoint. */
  private readonly inFlight = new Map<string, number[]>();
  private all = 0;
  private readonly waiters: Array<{ endpointId: string; take: () => void }> = [];

  constructor(
    readonly total: number,
    readonly perEndpoint: number,
    readonly maxWaitMs = 0,
    readonly maxWaiters = 0,
    private readonly now: () => number = Date.now,
  ) {}

  /** A slot for one inline attempt of `endpointId`, or undefined: send it as the activity. */
  async enter(endpointId: string): Promise<InlineSlot | undefined> {
    if (this.hasRoom(endpointId)) return this.take(endpointId);
    if (!this.worthWaiting(endpointId)) return undefined;
    return new Promise((resolve) => {
      const waiter = {
        endpointId,
        take: () => {
          clearTimeout(timer);
          resolve(this.take(endpointId));
        },
      };
      const timer = setTimeout(() => {
        this.waiters.splice(this.waiters.indexOf(waiter), 1);
        resolve(undefined);
      }, this.maxWaitMs);
      this.waiters.push(waiter);
    });
  }

  /** For tests and metrics: inline attempts of `endpointId` running here. */
  held(endpointId: string): number {
    return this.inFlight.get(endpointId)?.length ?? 0;
  }

  /** For tests and metrics: first attempts waiting here for a slot. */
  waiting(): number {
    return this.waiters.length;
  }

  private hasRoom(endpointId: string): boolean {
    return this.all < this.total && this.held(endpointId) < this.perEndpoint;
  }

  private take(endpointId: string): InlineSlot {
    const startedAt = this.now();
    const starts = this.inFlight.get(endpointId);
    if (starts) starts.push(startedAt);
    else this.inFlight.set(endpointId, [startedAt]);
    this.all++;
    let left = false;
    return {
      leave: () => {
        if (left) return;
        left = true;
        this.leave(endpointId, startedAt);
      },
    };
  }

  private leave(endpointId: string, startedAt: number): void {
    const starts = this.inFlight.get(endpointId) ?? [];
    starts.splice(starts.indexOf(startedAt), 1);
    if (starts.length === 0) this.inFlight.delete(endpointId);
    this.all--;
    // The oldest waiter that the freed slot can serve (its endpoint may still be full).
    const next = this.waiters.findIndex((w) => this.hasRoom(w.endpointId));
    if (next >= 0) this.waiters.splice(next, 1)[0]!.take();
  }

  /** Whether a send holding what `endpointId` lacks may end within the wait. */
  private worthWaiting(endpointId: string): boolean {
    if (this.maxWaitMs <= 0 || this.waiters.length >= this.maxWaiters) return false;
    const youngSince = this.now() - this.maxWaitMs;
    const young = (starts: readonly number[] | undefined) => (starts ?? []).some((t) => t > youngSince);
    if (this.held(endpointId) >= this.perEndpoint) return young(this.inFlight.get(endpointId));
    for (const starts of this.inFlight.values()) if (young(starts)) return true;
    return false;
  }
}

/** One inline attempt's hold on its slot. */
export interface InlineSlot {
  leave(): void;
}

/**
 * Inline attempts at once on a worker: half its workflow-task slots, the rest stay free for
 * other tasks; at most half of those rest may wait for an inline slot.
 */
export function inlineSlotsFor(
  share: number,
  workflowTaskSlots: number,
  total?: number,
  maxWaitMs = 0,
): InlineSlots {
  const all = total ?? Math.max(1, Math.floor(workflowTaskSlots / 2));
  const waiters = Math.max(0, Math.floor((workflowTaskSlots - all) / 2));
  return new InlineSlots(all, all === 0 ? 0 : shareLimit(share, all), maxWaitMs, waiters);
}
