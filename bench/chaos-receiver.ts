import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a receiver did with one request. Only `ok` is a delivery (a 2xx within the timeout). */
export type Outcome = 'ok' | '5xx' | '429' | 'reset' | 'slow' | 'gone';

export interface Arrival {
  endpoint: number;
  webhookId: string;
  deliveryId: string;
  attempt: number;
  at: number;
  outcome: Outcome;
}

/** A small seeded PRNG (mulberry32) over a string hash: same seed, same answers. */
export function seeded(seed: string): () => number {
  let h = 1779033703 ^ seed.length;
  for (let i = 0; i < seed.length; i++) {
    h = Math.imul(h ^ seed.charCodeAt(i), 3432918353);
    h = (h << 13) | (h >>> 19);
  }
  let a = h >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The answer for one attempt of one event, from the seed alone (replays of the run agree). */
export function outcomeFor(seed: number, webhookId: string, attempt: number, goneEndpoint: boolean): Outcome {
  if (goneEndpoint) return 'gone';
  const r = seeded(`${seed}:${webhookId}:${attempt}`)();
  if (r < 0.72) return 'ok';
  if (r < 0.82) return '5xx';
  if (r < 0.88) return '429';
  if (r < 0.94) return 'reset';
  return 'slow';
}

/**
 * The chaos run's receivers, one loopback path per endpoint (/e0 ... /eN). Every request is
 * logged with its webhook-id, attempt (from Webhook-Delivery-Id: `<delivery>:<attempt>`)
 * and arrival time, before it is answered.
 */
export class ChaosReceivers {
  readonly log: Arrival[] = [];
  private server?: Server;

  constructor(
    private readonly seed: number,
    private readonly goneEndpoint: number,
    private readonly slowMs: number,
  ) {}

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const endpoint = Number(/^\/e(\d+)/.exec(req.url ?? '')?.[1] ?? -1);
        const webhookId = String(req.headers['webhook-id'] ?? '');
        const idHeader = String(req.headers['webhook-delivery-id'] ?? '');
        const i = idHeader.lastIndexOf(':');
        const deliveryId = i > 0 ? idHeader.slice(0, i) : idHeader;
        const attempt = i > 0 ? Number(idHeader.slice(i + 1)) : 0;
        const outcome = outcomeFor(this.seed, webhookId, attempt, endpoint === this.goneEndpoint);
        this.log.push({ endpoint, webhookId, deliveryId, attempt, at: Date.now(), outcome });
        switch (outcome) {
          case 'ok':
            return res.writeHead(200).end('ok');
          case '5xx':
            return res.writeHead(503).end('down');
          case '429':
            return res.writeHead(429, { 'retry-after': '1' }).end('slow down');
          case 'reset':
            return req.socket.destroy();
          case 'slow':
            // Answered 2xx, but after the endpoint's timeout: Herald must count it failed.
            return void setTimeout(() => res.writeHead(200).end('late'), this.slowMs).unref();
          case 'gone':
            return res.writeHead(410).end('gone');
        }
      });
    });
    this.server.keepAliveTimeout = 30_000;
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((r) => (this.server ? this.server.close(() => r()) : r()));
  }
}
