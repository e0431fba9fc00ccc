import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export type Responder = (req: ReceivedRequest, index: number, res: ServerResponse) => unknown;

/** A real HTTP server on loopback that records every request and answers as scripted. */
export class Receiver {
  readonly requests: ReceivedRequest[] = [];
  private server?: Server;
  private waiters: Array<{ n: number; resolve: () => void }> = [];

  constructor(
    private responder: Responder = (_r, _i, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    },
  ) {}

  respondWith(responder: Responder) {
    this.responder = responder;
  }

  async start(host = '127.0.0.1', port = 0): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const rec: ReceivedRequest = {
          method: req.method ?? '',
          path: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
        };
        const index = this.requests.push(rec) - 1;
        for (const w of this.waiters.filter((w) => this.requests.length >= w.n)) w.resolve();
        this.waiters = this.waiters.filter((w) => this.requests.length < w.n);
        void Promise.resolve(this.responder(rec, index, res)).catch(() => res.destroy());
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(port, host, resolve));
    const addr = this.server.address() as AddressInfo;
    const h = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
    return `http://${h}:${addr.port}`;
  }

  waitFor(n: number, timeoutMs = 30_000): Promise<void> {
    if (this.requests.length >= n) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`receiver got ${this.requests.length} of ${n} requests`)),
        timeoutMs,
      );
      this.waiters.push({
        n,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
