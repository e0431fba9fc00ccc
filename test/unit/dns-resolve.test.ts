import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, open, openSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDnsResolve } from '../../src/activities/dns-resolve.js';
import { createHttpSender } from '../../src/activities/http-sender.js';
import { PinnedDispatchers } from '../../src/activities/pinned-dispatcher.js';
import { parseCidrList } from '../../src/policy/address.js';
import { DnsStub } from '../helpers/dns-stub.js';

/**
 * Holds Node's four pool threads (UV_THREADPOOL_SIZE's default), as getaddrinfo calls waiting
 * on a nameserver that never answers would: each opens a FIFO for reading, which blocks its
 * thread until a writer comes. No CPU is spent. The release is that writer.
 */
function holdThreadPool(): () => Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'herald-pool-'));
  const fifos = [0, 1, 2, 3].map((i) => join(dir, `f${i}`));
  for (const f of fifos) execFileSync('mkfifo', [f]);
  const readers = fifos.map(
    (f) =>
      new Promise<number>((resolve, reject) => open(f, 'r', (err, fd) => (err ? reject(err) : resolve(fd)))),
  );
  return async () => {
    const writers = fifos.map((f) => openSync(f, 'w'));
    for (const fd of [...writers, ...(await Promise.all(readers))]) closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  };
}

const timed = async <T>(p: Promise<T>) => {
  const t0 = performance.now();
  const value = await p;
  return { value, ms: performance.now() - t0 };
};

describe('R-SSRF R-TIMEOUT: name resolution does not queue behind the thread pool', () => {
  const dns = new DnsStub({ 'receiver.test': '127.0.0.1' }, ['silent.test']);
  let servers: string[];
  let server: Server;
  let port: number;
  beforeAll(async () => {
    servers = [await dns.start()];
    server = createServer((_req, res) => res.writeHead(200).end('ok'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await dns.stop();
    await new Promise((r) => server.close(r));
  });

  it('R-SSRF: a name is resolved by DNS queries (c-ares); one DNS does not know goes to the fallback (the hosts file); a silent server times out and is not asked again', async () => {
    const fellBack: string[] = [];
    const resolve = createDnsResolve({
      servers,
      timeoutMs: 300,
      tries: 1,
      fallback: async (host) => {
        fellBack.push(host);
        return host === 'hosts-file.test'
          ? [{ address: '127.0.0.9', family: 4 }]
          : Promise.reject(new Error('no'));
      },
    });
    expect(await resolve('receiver.test')).toEqual([{ address: '127.0.0.1', family: 4 }]);
    expect(await resolve('RECEIVER.test.')).toEqual([{ address: '127.0.0.1', family: 4 }]);
    expect(await resolve('hosts-file.test')).toEqual([{ address: '127.0.0.9', family: 4 }]);
    await expect(resolve('nowhere.test')).rejects.toThrow('no');
    const silent = resolve('silent.test').then(
      () => 'answered',
      (e: { code?: string }) => e.code,
    );
    expect(await silent).toBe('ETIMEOUT');
    expect(fellBack).toEqual(['hosts-file.test', 'nowhere.test']);
    expect(dns.queries).toContain('receiver.test 1');
  });

  it('R-TIMEOUT: with every pool thread held (lookups stuck on a silent nameserver), names still resolve at once', async () => {
    const resolve = createDnsResolve({ servers, timeoutMs: 300, tries: 1 });
    const release = holdThreadPool();
    await new Promise((r) => setTimeout(r, 100));
    const a = await timed(resolve('receiver.test'));
    const local = await timed(createDnsResolve()('localhost'));
    await release();
    expect(a.value[0]).toEqual({ address: '127.0.0.1', family: 4 });
    expect(a.ms).toBeLessThan(500);
    expect(local.value).toEqual([{ address: '127.0.0.1', family: 4 }]);
    expect(local.ms).toBeLessThan(50);
  });

  it('R-TIMEOUT: the sender reaches http://localhost with every pool thread held, within a 1 s attempt, instead of ending dns_failed', async () => {
    const send = createHttpSender({
      dispatchers: new PinnedDispatchers(),
      allowAddresses: parseCidrList(['127.0.0.1/32']),
      allowHttpHosts: ['localhost'],
      now: () => new Date(),
    });
    const release = holdThreadPool();
    await new Promise((r) => setTimeout(r, 100));
    const r = await send({
      deliveryId: 'dlv_dns',
      attempt: 1,
      event: { id: 'msg_dns', type: 'x', occurredAt: new Date().toISOString(), body: '{}' },
      target: { url: `http://localhost:${port}/hook`, secrets: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'] },
      timeoutSeconds: 1,
      deliveryIdHeader: 'x-delivery-id',
    });
    await release();
    expect(r.code).toBeUndefined();
    expect(r.httpStatus).toBe(200);
  });
});
