import type { SendResult } from '../shared/delivery-types.js';

/**
 * Issue 16, R-CRASH: an inline first attempt runs inside its delivery's first workflow task.
 * When the worker's workflow cache is full, sdk-core evicts its least recently used run to
 * make room, even one whose local activity is out: the activity is cancelled, its result is
 * dropped ("Tried to complete untracked local activity") and the task is found only by its
 * timeout. The repeated first task then knew only that the attempt may have been sent, and
 * sent it again. The request did go out, from this process, so its outcome is kept here
 * and the repeat on this worker takes it instead of sending a second time. A repeat on
 * another worker, or after this process died, still sends again (at least once).
 *
 * Only sends cancelled while they ran are kept, for `keepMs`: the repeat comes one task
 * timeout (at most a minute) after the task that sent it.
 */
export class DroppedInlineSends {
  private readonly kept = new Map<string, { outcome: Promise<SendResult>; until: number }>();

  constructor(
    private readonly keepMs = 180_000,
    private readonly max = 1_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Follows one inline send: kept when `cancelled` aborts before it ends. */
  watch(key: string, outcome: Promise<SendResult>, cancelled: AbortSignal): void {
    const keep = () => this.keep(key, outcome);
    if (cancelled.aborted) return keep();
    cancelled.addEventListener('abort', keep, { once: true });
    const settled = () => cancelled.removeEventListener('abort', keep);
    outcome.then(settled, settled);
  }

  /** The outcome of the send kept under `key`, at most once. */
  take(key: string): Promise<SendResult> | undefined {
    this.prune();
    const entry = this.kept.get(key);
    this.kept.delete(key);
    return entry?.outcome;
  }

  /** For tests and metrics: sends kept now. */
  get size(): number {
    return this.kept.size;
  }

  private keep(key: string, outcome: Promise<SendResult>): void {
    // Read only through take(); a failed send must not become an unhandled rejection meanwhile.
    outcome.catch(() => undefined);
    this.prune();
    this.kept.delete(key);
    this.kept.set(key, { outcome, until: this.now() + this.keepMs });
    while (this.kept.size > this.max) this.kept.delete(this.kept.keys().next().value as string);
  }

  private prune(): void {
    const now = this.now();
    for (const [key, entry] of this.kept) {
      if (entry.until > now) break;
      this.kept.delete(key);
    }
  }
}

/**
 * The key an inline attempt's send is kept under. Attempt numbers go on across a delivery's
 * runs (a replay continues its log), so a delivery's id and the attempt name one send.
 */
export function inlineSendKey(deliveryId: string, attempt: number): string {
  return `${deliveryId}#${attempt}`;
}
