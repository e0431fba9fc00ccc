import type { Client } from '@temporalio/client';
import { randomBytes } from 'node:crypto';
import type { DeliveryInput } from '../shared/delivery-types.js';
import { INGEST_BATCH_WORKFLOW } from '../shared/names.js';
import { startForward } from './forwards.js';

/**
 * How many of a request's forwards this call started. Zero: every one already existed (a
 * repeat of a request with derived ids, issue 13.8). Undefined when they went through a
 * batch workflow, which does not report back which it started.
 */
export interface Accepted {
  started?: number;
}

interface Pending {
  forwards: DeliveryInput[];
  bytes: number;
  resolve: (a: Accepted) => void;
  reject: (err: unknown) => void;
}

/** Rough size of a forward in a workflow input (the body dominates). */
const sizeOf = (f: DeliveryInput) =>
  Buffer.byteLength(f.event.body) + JSON.stringify(f.target?.forward?.headers ?? []).length + 1024;

/**
 * Group commit for the ingest route (R-RH-INBOUND). A request is acknowledged once its
 * forwards are durable in Temporal. When nothing else is in flight, its forwards are
 * started directly; requests arriving while starts are in flight wait for the next
 * flush and are accepted together by one `ingestBatchWorkflow` start (one durable write
 * instead of one per forward), which then starts each forward. A quiet source pays no
 * extra hop; a busy one does not queue behind a write per request.
 */
export class IngestBatcher {
  private queue: Pending[] = [];
  private inFlight = 0;

  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
    private readonly opts = { maxConcurrent: 4, maxForwards: 200, maxBytes: 512 * 1024 },
  ) {}

  /** Resolves when every forward is durably started (or recorded in a started batch). */
  accept(forwards: DeliveryInput[]): Promise<Accepted> {
    if (forwards.length === 0) return Promise.resolve({ started: 0 });
    return new Promise((resolve, reject) => {
      this.queue.push({ forwards, bytes: forwards.reduce((n, f) => n + sizeOf(f), 0), resolve, reject });
      this.pump();
    });
  }

  private pump() {
    while (this.inFlight < this.opts.maxConcurrent && this.queue.length > 0) {
      const batch = this.take();
      this.inFlight++;
      void this.flush(batch).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  /** The next requests, up to the batch limits (a single oversized request goes alone). */
  private take(): Pending[] {
    const out: Pending[] = [];
    let n = 0;
    let bytes = 0;
    while (this.queue.length > 0) {
      const next = this.queue[0]!;
      if (
        out.length > 0 &&
        (n + next.forwards.length > this.opts.maxForwards || bytes + next.bytes > this.opts.maxBytes)
      )
        break;
      out.push(this.queue.shift()!);
      n += next.forwards.length;
      bytes += next.bytes;
    }
    return out;
  }

  private async flush(batch: Pending[]): Promise<void> {
    try {
      // One request on its own (a quiet source, or one too big to share a batch) starts its
      // forwards directly: a batch input must stay far below Temporal's 2 MB payload limit.
      if (batch.length === 1) {
        const started = await Promise.all(
          batch[0]!.forwards.map((f) => startForward(this.client, this.taskQueue, f)),
        );
        batch[0]!.resolve({ started: started.filter(Boolean).length });
        return;
      }
      // Repeats of one message arriving together carry the same forward ids (issue 13.8):
      // each is started once; the batch workflow also ignores a forward that already exists.
      const byId = new Map<string, DeliveryInput>();
      for (const f of batch.flatMap((p) => p.forwards))
        if (!byId.has(f.deliveryId)) byId.set(f.deliveryId, f);
      await this.client.workflow.start(INGEST_BATCH_WORKFLOW, {
        workflowId: `ib_${randomBytes(12).toString('hex')}`,
        taskQueue: this.taskQueue,
        args: [{ forwards: [...byId.values()] }],
      });
      for (const p of batch) p.resolve({});
    } catch (err) {
      for (const p of batch) p.reject(err);
    }
  }
}
