import { request } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_OPERATOR_KEY, type TenantSession } from '../../helpers/api.js';
import { listeningApp, type ListeningApp } from '../../helpers/listening-app.js';

/**
 * Issue 13.4: every route has a streaming body limit. A chunked body (no Content-Length)
 * is counted as it arrives and refused with a 413 problem+json once it passes the route's
 * limit, while the client is still sending: the server neither waits for nor buffers the
 * rest. Measured against a real listening server over loopback, with a client that sends
 * 16 KiB at a time and notes how much it had sent when the answer came.
 */

const KIB = 1024;
const MIB = 1024 * KIB;

interface Streamed {
  status: number;
  contentType: string | undefined;
  body: string;
  /** Bytes written before the response arrived. */
  sentWhenAnswered: number;
  /** True when the answer came before the client finished the body. */
  answeredEarly: boolean;
}

/** POSTs `total` bytes chunked, 16 KiB every couple of milliseconds, until the server answers. */
function streamChunked(port: number, path: string, headers: Record<string, string>, total = 3 * MIB) {
  return new Promise<Streamed>((resolve, reject) => {
    let sent = 0;
    let answered:
      { status: number; contentType: string | undefined; sent: number; early: boolean } | undefined;
    let finished = false;
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', headers });
    req.on('error', (err) => {
      // The server may close the socket after its answer; that is the point.
      if (!answered) reject(err);
    });
    req.on('response', (res) => {
      answered = {
        status: res.statusCode ?? 0,
        contentType: res.headers['content-type'],
        sent,
        early: !finished,
      };
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: answered!.status,
          contentType: answered!.contentType,
          body: Buffer.concat(chunks).toString('utf8'),
          sentWhenAnswered: answered!.sent,
          answeredEarly: answered!.early,
        }),
      );
      res.on('error', reject);
    });
    void (async () => {
      // A JSON-looking start, so routes that parse see what a client would send.
      const head = Buffer.from('{"type":"big.body","name":"x","payload":"');
      req.write(head);
      sent += head.length;
      const chunk = Buffer.alloc(16 * KIB, 'x');
      while (sent < total && !answered) {
        if (!req.write(chunk)) await new Promise((r) => req.once('drain', r));
        sent += chunk.length;
        await delay(2);
      }
      finished = true;
      if (!answered) req.end('"}');
      else req.destroy();
    })().catch(reject);
  });
}

describe('13.4 streaming body limit on every route (real server, chunked bodies)', () => {
  let h: ListeningApp;
  let port: number;
  let t: TenantSession;

  beforeAll(async () => {
    h = await listeningApp('Body Limit Co');
    ({ port, tenant: t } = h);
  });

  afterAll(async () => {
    await h?.stop();
  });

  const tenantHeaders = () => ({ authorization: `Bearer ${t.apiKey}`, 'content-type': 'application/json' });
  const operatorHeaders = () => ({
    authorization: `Bearer ${TEST_OPERATOR_KEY}`,
    'content-type': 'application/json',
  });

  const routes: Array<{
    name: string;
    path: () => string;
    headers: () => Record<string, string>;
    limit: number;
  }> = [
    { name: 'publish POST /v1/events', path: () => '/v1/events', headers: tenantHeaders, limit: 256 * KIB },
    {
      name: 'POST /v1/admin/tenants',
      path: () => '/v1/admin/tenants',
      headers: operatorHeaders,
      limit: 64 * KIB,
    },
    { name: 'POST /v1/endpoints', path: () => '/v1/endpoints', headers: tenantHeaders, limit: 128 * KIB },
    {
      name: 'POST /v1/replay/window',
      path: () => '/v1/replay/window',
      headers: tenantHeaders,
      limit: 64 * KIB,
    },
    { name: 'POST /v1/sources', path: () => '/v1/sources', headers: tenantHeaders, limit: 1024 * KIB },
    {
      name: 'ingest POST /in/{sourceId}',
      path: () => '/in/src_doesnotexist',
      headers: () => ({ 'content-type': 'application/octet-stream' }),
      limit: 512 * KIB,
    },
  ];

  for (const route of routes) {
    it(`13.4: ${route.name}: a 3 MiB chunked body gets a 413 payload_too_large while it is still being sent`, async () => {
      const r = await streamChunked(port, route.path(), route.headers());
      const label = `${route.name}: ${r.status} after ${r.sentWhenAnswered} bytes, ${r.body.slice(0, 200)}`;
      expect(r.status, label).toBe(413);
      // Answered before the client was done, after little more than the limit: the server
      // stopped reading there instead of taking in all 3 MiB first.
      expect(r.answeredEarly, label).toBe(true);
      expect(r.sentWhenAnswered, label).toBeLessThan(route.limit + 1 * MIB);
      expect(r.contentType, label).toMatch(/^application\/problem\+json/);
      expect(JSON.parse(r.body), label).toMatchObject({
        status: 413,
        code: 'payload_too_large',
        maxBytes: route.limit,
      });
    });
  }

  it('13.4: publish: a chunked body under the limit is read whole (202), one just over it is refused while still being sent', async () => {
    const payload = { blob: 'y'.repeat(100 * KIB) };
    const body = Buffer.from(JSON.stringify({ type: 'chunked.ok', payload }));
    const res = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request({
        host: '127.0.0.1',
        port,
        path: '/v1/events',
        method: 'POST',
        headers: tenantHeaders(),
      });
      req.on('error', reject);
      req.on('response', (r) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () =>
          resolve({ status: r.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
      });
      for (let i = 0; i < body.length; i += 8 * KIB) req.write(body.subarray(i, i + 8 * KIB));
      req.end();
    });
    expect(res.status, res.text.slice(0, 300)).toBe(202);
    expect(JSON.parse(res.text)).toMatchObject({ type: 'chunked.ok' });
    // 1 MiB, a little over the 256 KiB limit: refused at the limit, not at the end.
    const over = await streamChunked(port, '/v1/events', tenantHeaders(), 1 * MIB);
    expect(over.status).toBe(413);
    expect(over.answeredEarly, `answered after ${over.sentWhenAnswered} bytes`).toBe(true);
  });

  it('13.4: a declared Content-Length over the limit is refused unread', async () => {
    const r = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = request({
        host: '127.0.0.1',
        port,
        path: '/v1/admin/tenants',
        method: 'POST',
        headers: { ...operatorHeaders(), 'content-length': String(3 * MIB) },
      });
      req.on('error', () => undefined);
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
          req.destroy();
        });
        res.on('error', reject);
      });
      // Only the start of the declared body is ever sent: a server waiting for the rest
      // would never answer.
      req.write('{"name":"');
      setTimeout(
        () => reject(new Error('no answer within 10 s: the server waits for the declared body')),
        10_000,
      );
    });
    expect(r.status, r.text).toBe(413);
    expect(JSON.parse(r.text)).toMatchObject({ code: 'payload_too_large' });
  });
});
