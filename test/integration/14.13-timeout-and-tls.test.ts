import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer, type Server as HttpsServer } from 'node:https';
import { connect as tcpConnect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { createHttpSender } from '../../src/activities/http-sender.js';
import { PinnedDispatchers } from '../../src/activities/pinned-dispatcher.js';
import { parseCidrList } from '../../src/policy/address.js';
import type { SendRequest } from '../../src/shared/delivery-types.js';
import { generateSecret } from '../../src/signing/standard-webhooks.js';
import { newTenant, type TenantSession } from '../helpers/api.js';
import { startDevWorker } from '../helpers/dev-worker.js';
import { Receiver } from '../helpers/receiver.js';

// Issue 14.13, R-TIMEOUT: the policy timeout covers the whole attempt, connect included;
// undici's own 10 s connect timeout must not cut it shorter, and time spent waiting for
// a socket must not count.

const request = (url: string, timeoutSeconds: number, n = 0): SendRequest => ({
  deliveryId: `dl_${n}`,
  attempt: 1,
  event: { id: `evt_${n}`, type: 'x.y', occurredAt: '2026-01-01T00:00:00Z', body: '{}' },
  target: { url, secrets: [generateSecret()] },
  timeoutSeconds,
  deliveryIdHeader: 'Webhook-Delivery-Id',
});

function sender(dispatchers: PinnedDispatchers) {
  return createHttpSender({
    dispatchers,
    allowAddresses: parseCidrList(['127.0.0.1/32']),
    allowHttpHosts: ['127.0.0.1'],
    now: () => new Date(),
  });
}

/**
 * A loopback HTTP server whose accept queue is full: it runs in a child process that is
 * stopped (SIGSTOP), and its backlog is taken by filler connections. The kernel then drops
 * the SYNs of a new connection, so its connect phase lasts until the server is resumed
 * and the client's next SYN retransmission gets through. This is the network being
 * slow, on loopback; nothing in Herald is replaced.
 */
class StalledListener {
  private child?: ChildProcess;
  private fillers: Socket[] = [];
  port = 0;

  async start() {
    this.child = spawn(
      process.execPath,
      [
        '-e',
        `const s = require('node:http').createServer((q, r) => { q.resume(); q.on('end', () => r.end('ok')); });
         s.listen({ port: 0, host: '127.0.0.1', backlog: 1 }, () => process.stdout.write(s.address().port + '\\n'));`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    this.port = await new Promise<number>((resolve) =>
      this.child!.stdout!.once('data', (d) => resolve(Number(String(d).trim()))),
    );
    this.child.kill('SIGSTOP');
    // Connect until one connection no longer completes: the accept queue is then full.
    for (let i = 0; i < 16; i++) {
      const s = tcpConnect(this.port, '127.0.0.1');
      s.on('error', () => undefined);
      const connected = await new Promise<boolean>((resolve) => {
        s.once('connect', () => resolve(true));
        setTimeout(() => resolve(false), 400);
      });
      if (!connected) {
        s.destroy();
        break;
      }
      this.fillers.push(s);
    }
    expect(this.fillers.length).toBeGreaterThan(0);
  }

  resume() {
    this.child?.kill('SIGCONT');
    for (const f of this.fillers) f.destroy();
  }

  stop() {
    for (const f of this.fillers) f.destroy();
    this.child?.kill('SIGKILL');
  }
}

describe('14.13 R-TIMEOUT: the connect phase has the whole policy timeout', () => {
  it('14.13 R-TIMEOUT: a connect phase of more than 10 s within an 18 s policy timeout is not cut at 10 s', async () => {
    const slow = new StalledListener();
    const dispatchers = new PinnedDispatchers();
    try {
      await slow.start();
      // Resumed after 9 s: the connection completes at the next SYN retransmission (about
      // 11 s on Linux here; 15 s on a stock kernel), past undici's 10 s default.
      const resume = setTimeout(() => slow.resume(), 9_000);
      const r = await sender(dispatchers)(request(`http://127.0.0.1:${slow.port}/slow-connect`, 18));
      clearTimeout(resume);
      expect(r).toMatchObject({ httpStatus: 200 });
      expect(r.code).toBeUndefined();
      expect(r.latencyMs).toBeGreaterThan(10_000);
    } finally {
      slow.stop();
      await dispatchers.close();
    }
  }, 20_000);

  it('14.13 R-TIMEOUT: the attempt deadline still ends a connect phase that outlasts the policy timeout', async () => {
    const slow = new StalledListener();
    const dispatchers = new PinnedDispatchers();
    try {
      await slow.start();
      const r = await sender(dispatchers)(request(`http://127.0.0.1:${slow.port}/never-connects`, 3));
      expect(r.code).toBe('timeout');
      expect(r.httpStatus).toBeUndefined();
      expect(r.latencyMs).toBeGreaterThanOrEqual(2_900);
      expect(r.latencyMs).toBeLessThan(5_000);
    } finally {
      slow.stop();
      await dispatchers.close();
    }
  }, 15_000);

  it('14.13 R-TIMEOUT: time waiting for a socket does not count: 100 concurrent 1.2 s answers within a 2 s timeout all succeed', async () => {
    // 100 attempts at once to one receiver that takes 1.2 s to answer. Each has 2 s. With
    // a cap of 64 connections per origin, the 36 queued ones would wait 1.2 s for a socket
    // and then time out before their answer; with no queue, every one gets its 1.2 s answer.
    const receiver = new Receiver((_r, _i, res) => {
      setTimeout(() => res.writeHead(200).end('ok'), 1_200);
    });
    const dispatchers = new PinnedDispatchers();
    try {
      const base = await receiver.start();
      const send = sender(dispatchers);
      const results = await Promise.all(
        Array.from({ length: 100 }, (_, i) => send(request(`${base}/busy`, 2, i))),
      );
      const codes = results.map((r) => r.code ?? String(r.httpStatus));
      expect(codes.filter((c) => c !== '200')).toEqual([]);
      // No queue for a socket: all 100 were at the receiver before its first answer (1.2 s).
      // Read at the receiver, not as each send's latency, which on a loaded machine includes
      // the test process's own event loop.
      const arrivals = receiver.requests.map((r) => r.at);
      expect(arrivals).toHaveLength(100);
      expect(Math.max(...arrivals) - Math.min(...arrivals)).toBeLessThan(1_200);
    } finally {
      await receiver.stop();
      await dispatchers.close();
    }
  }, 15_000);
});

describe('14.13 R-TIMEOUT: a TLS failure is a network failure, and it is retried', () => {
  let w: Awaited<ReturnType<typeof startDevWorker>>;
  let tenant: TenantSession;
  let tls: HttpsServer;
  let dir: string;
  let connections = 0;
  let served = 0;

  beforeAll(async () => {
    // A self-signed certificate for 127.0.0.1, made for this run.
    dir = mkdtempSync(join(tmpdir(), 'herald-14.13-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    tls = createHttpsServer(
      { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
      (_req, res) => {
        served++;
        res.end('ok');
      },
    );
    tls.on('connection', () => connections++);
    tls.on('tlsClientError', () => undefined);
    await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
    // 127.0.0.1 is allowed as an address (HERALD_ALLOW_ADDRESSES in testConfig); https
    // needs no plain-http allowance.
    w = await startDevWorker();
    tenant = await newTenant(createApp({ client: w.client, config: w.config }));
  });
  afterAll(async () => {
    await w?.stop();
    await new Promise<void>((resolve) => tls?.close(() => resolve()));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('14.13 R-TIMEOUT: a receiver with a self-signed certificate fails network_DEPTH_ZERO_SELF_SIGNED_CERT, and the next attempt follows 1 s later', async () => {
    const port = (tls.address() as AddressInfo).port;
    const ep = await tenant.call('POST', '/v1/endpoints', {
      url: `https://127.0.0.1:${port}/hook`,
      preset: 'standard',
      eventTypes: ['tls.check'],
      policy: { maxAttempts: 2, retryDelays: [1], timeoutSeconds: 5 },
    });
    expect(ep.status, await ep.clone().text()).toBe(201);
    const pub = await tenant.call('POST', '/v1/events', { type: 'tls.check', payload: { n: 1 } });
    expect(pub.status).toBe(202);
    const id = ((await pub.json()) as { deliveries: Array<{ id: string }> }).deliveries[0]!.id;

    type View = {
      status: string;
      attempts: Array<{ kind: string; code?: string; startedAt: string; finishedAt: string }>;
    };
    let view: View | undefined;
    await expect
      .poll(
        async () => {
          view = (await (await tenant.call('GET', `/v1/deliveries/${id}`)).json()) as View;
          return view.status;
        },
        { timeout: 20_000, interval: 200 },
      )
      .toBe('exhausted');
    const attempts = view!.attempts.filter((a) => a.kind === 'attempt').reverse();
    expect(attempts.map((a) => a.code)).toEqual([
      'network_DEPTH_ZERO_SELF_SIGNED_CERT',
      'network_DEPTH_ZERO_SELF_SIGNED_CERT',
    ]);
    const gap = Date.parse(attempts[1]!.startedAt) - Date.parse(attempts[0]!.finishedAt);
    expect(gap).toBeGreaterThanOrEqual(800);
    expect(gap).toBeLessThan(5_000);
    // Both attempts reached the server, and neither got past the handshake.
    expect(connections).toBe(2);
    expect(served).toBe(0);
  }, 30_000);
});
