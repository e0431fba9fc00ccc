import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Arrivals } from './event-names.js';

/** What one path answers; the bench flips a path from failing to healthy mid-run. */
export type PathMode = { status: number; retryAfter?: string; delayMs?: number };

/**
 * The loopback receiver every scenario shares, kept lean so it is never the bottleneck:
 * it records the first arrival of each event (`webhook-id`) and every 2xx per delivery
 * (`idempotency-key`), nothing else.
 */
export class BenchReceiver {
  readonly firstArrival = new Arrivals<number>();
  /** Successful receipts per delivery: more than one is a duplicate the log must explain. */
  readonly okReceipts = new Map<string, number>();
  readonly attemptsByDelivery = new Map<string, number>();
  readonly deliveriesByPath = new Map<string, Set<string>>();
  /** The delivery that brought each event first, to look a slow one up in Temporal. */
  readonly firstDelivery = new Arrivals<string>();
  requests = 0;
  /** Requests being answered now, and the most at once (a slow path holds them). */
  inFlight = 0;
  maxInFlight = 0;
  private modes = new Map<string, PathMode>();
  private server?: Server;
  private waiters: Array<{ done: () => boolean; resolve: () => void }> = [];

  setMode(path: string, mode: PathMode) {
    this.modes.set(path, mode);
  }

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const at = performance.timeOrigin + performance.now();
      this.inFlight++;
      this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
      res.once('close', () => this.inFlight--);
      req.resume();
      req.on('end', () => {
        this.requests++;
        const id = req.headers['webhook-id'];
        const delivery = req.headers['idempotency-key'];
        const path = (req.url ?? '/').split('?')[0]!;
        const mode = this.modes.get(path) ?? { status: 200 };
        if (typeof id === 'string' && !this.firstArrival.has(id)) {
          this.firstArrival.set(id, at);
          if (typeof delivery === 'string') this.firstDelivery.set(id, delivery);
        }
        if (typeof delivery === 'string') {
          this.attemptsByDelivery.set(delivery, (this.attemptsByDelivery.get(delivery) ?? 0) + 1);
          let set = this.deliveriesByPath.get(path);
          if (!set) this.deliveriesByPath.set(path, (set = new Set()));
          set.add(delivery);
          if (mode.status < 300) this.okReceipts.set(delivery, (this.okReceipts.get(delivery) ?? 0) + 1);
        }
        const headers: Record<string, string> = { 'content-type': 'text/plain' };
        if (mode.retryAfter) headers['retry-after'] = mode.retryAfter;
        const answer = () =>
          res.writeHead(mode.status, headers).end(mode.status < 300 ? 'ok' : 'unavailable');
        // A slow receiver: the request is seen (and recorded) now, answered later.
        if (mode.delayMs) setTimeout(answer, mode.delayMs);
        else answer();
        if (this.waiters.length) this.check();
      });
    });
    this.server.keepAliveTimeout = 60_000;
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private check() {
    this.waiters = this.waiters.filter((w) => {
      if (!w.done()) return true;
      w.resolve();
      return false;
    });
  }

  /** Resolves when `done` holds, checked on every request and every 250 ms. */
  until(done: () => boolean, timeoutMs: number, what: string): Promise<void> {
    return new Promise((resolve, reject) => {
      if (done()) return resolve();
      const timer = setTimeout(
        () => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)),
        timeoutMs,
      );
      const tick = setInterval(() => this.check(), 250);
      this.waiters.push({
        done,
        resolve: () => {
          clearTimeout(timer);
          clearInterval(tick);
          resolve();
        },
      });
    });
  }

  close(): Promise<void> {
    this.server?.closeAllConnections();
    return new Promise((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}

/** Milliseconds since the epoch with sub-millisecond precision, comparable with the receiver's. */
export const nowMs = () => performance.timeOrigin + performance.now();
