// R-RH-INBOUND end to end on the dev server: a real Herald API over HTTP (so headers arrive
// exactly as a sender wrote them), a real worker, and real destinations on 127.0.0.1.
import { serve, type ServerType } from '@hono/node-server';
import { createHmac } from 'node:crypto';
import { createServer, request as httpRequest, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { deliveryStateQuery } from '../../src/shared/messages.js';
import type { DeliveryState } from '../../src/shared/delivery-types.js';
import { httpApp, newTenant, type TenantSession } from '../helpers/api.js';
import { startDevWorker } from '../helpers/dev-worker.js';

interface RawRequest {
  path: string;
  /** As received: names in their spelling and order. */
  rawHeaders: Array<[string, string]>;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** A destination that keeps the raw bytes and raw headers (the shared Receiver keeps text). */
class RawDestination {
  readonly requests: RawRequest[] = [];
  private server?: Server;
  respond: (r: RawRequest, res: ServerResponse) => void = (_r, res) => res.writeHead(200).end('ok');

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw: Array<[string, string]> = [];
        for (let i = 0; i < req.rawHeaders.length; i += 2)
          raw.push([req.rawHeaders[i]!, req.rawHeaders[i + 1]!]);
        const r = { path: req.url ?? '', rawHeaders: raw, headers: req.headers, body: Buffer.concat(chunks) };
        this.requests.push(r);
        this.respond(r, res);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  on(path: string) {
    return this.requests.filter((r) => r.path === path);
  }

  async waitFor(path: string, n: number, timeoutMs = 30_000) {
    await expect
      .poll(() => this.on(path).length, { timeout: timeoutMs, interval: 50 })
      .toBeGreaterThanOrEqual(n);
    return this.on(path);
  }

  async stop() {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** A POST over plain node:http, so headers go out exactly as written (fetch would normalize them). */
function rawPost(
  url: string,
  headers: Array<[string, string]>,
  body: Buffer,
  opts: { chunked?: boolean } = {},
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    // With headers given as a list, node:http adds no Host of its own.
    const flat = ['Host', new URL(url).host, ...headers.flat()];
    if (!opts.chunked) flat.push('Content-Length', String(body.length));
    const req = httpRequest(url, { method: 'POST', headers: flat }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    // The server may answer 413 and close before the whole body is written.
    req.on('error', reject);
    if (opts.chunked) {
      for (let i = 0; i < body.length; i += 4096) req.write(body.subarray(i, i + 4096));
      req.end();
    } else req.end(body);
  });
}

type SourceOut = {
  source: {
    sourceId: string;
    ingestUrl: string;
    destinations: Array<{ destinationId: string; url: string }>;
  };
  secret?: string;
};
type Accepted = { requestId: string; forwards: Array<{ id: string; destinationId: string }> };

describe('R-RH-INBOUND inbound sources on the dev server', () => {
  let w: Awaited<ReturnType<typeof startDevWorker>>;
  let api: ServerType;
  let apiBase: string;
  let tenant: TenantSession;
  const dest = new RawDestination();
  let destBase: string;

  beforeAll(async () => {
    [w, destBase] = await Promise.all([startDevWorker(), dest.start()]);
    const app = createApp({ client: w.client, config: w.config });
    await new Promise<void>((resolve) => {
      api = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, (info) => {
        apiBase = `http://127.0.0.1:${info.port}`;
        resolve();
      });
    });
    tenant = await newTenant(httpApp(apiBase), 'Inbound Co');
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => (api ? api.close(() => resolve()) : resolve()));
    await w?.stop();
    await dest.stop();
  });

  async function createSource(body: Record<string, unknown>): Promise<SourceOut> {
    const res = await tenant.call('POST', '/v1/sources', body);
    expect(res.status, await res.clone().text()).toBe(201);
    return (await res.json()) as SourceOut;
  }

  async function forwardState(id: string): Promise<DeliveryState> {
    return w.client.workflow.getHandle(id).query(deliveryStateQuery);
  }

  async function finalState(id: string): Promise<DeliveryState> {
    await expect
      .poll(async () => (await forwardState(id)).status, { timeout: 30_000, interval: 100 })
      .toMatch(/succeeded|exhausted|failed|dead/);
    return forwardState(id);
  }

  it('R-RH-INBOUND: an unsigned request is accepted (202 once started in Temporal) and forwarded byte-for-byte with its headers', async () => {
    const { source } = await createSource({ name: 'plain', destinations: [{ url: `${destBase}/plain` }] });
    expect(source.sourceId).toMatch(/^src_[a-f0-9]{32}$/);
    // Issue 13.7: the ingest URL holds the ingest id (the credential), not the public sourceId.
    expect(source.ingestUrl).toMatch(new RegExp(`^${apiBase}/in/src_[a-f0-9]{32}$`));
    expect(source.ingestUrl).not.toBe(`${apiBase}/in/${source.sourceId}`);
    // Not valid UTF-8 on purpose: it must survive storage and forwarding unchanged.
    const body = Buffer.concat([
      Buffer.from('{"a":1}'),
      Buffer.from([0xff, 0xfe, 0x00, 0xc3, 0x28]),
      Buffer.from('\r\n'),
    ]);
    const sent: Array<[string, string]> = [
      ['Content-Type', 'application/vnd.sender+octet-stream'],
      ['X-Sender-Event', 'order.created'],
      ['x-MiXeD-CaSe', 'kept as written'],
      ['X-Repeated', 'one'],
      ['X-Repeated', 'two'],
      ['Connection', 'keep-alive'],
      ['User-Agent', 'Sender/1.0'],
    ];
    const res = await rawPost(source.ingestUrl, sent, body);
    expect(`${res.status} ${res.body}`).toMatch(/^202 /);
    const accepted = JSON.parse(res.body) as Accepted;
    expect(accepted.forwards).toHaveLength(1);
    const fwdId = accepted.forwards[0]!.id;
    // Durably accepted: the forward already exists in Temporal when the sender gets its 202.
    const described = await w.client.workflow.getHandle(fwdId).describe();
    expect(described.type).toBe('forwardWorkflow');

    const [got] = await dest.waitFor('/plain', 1);
    expect(Buffer.compare(got!.body, body)).toBe(0);
    const forwarded = got!.rawHeaders.filter(([k]) => !/^(host|content-length|connection)$/i.test(k));
    // The sender's headers in order and spelling, then Herald's own two.
    expect(forwarded).toEqual([
      ['Content-Type', 'application/vnd.sender+octet-stream'],
      ['X-Sender-Event', 'order.created'],
      ['x-MiXeD-CaSe', 'kept as written'],
      ['X-Repeated', 'one'],
      ['X-Repeated', 'two'],
      ['User-Agent', 'Sender/1.0'],
      ['Webhook-Delivery-Id', `${fwdId}:1`],
      ['Idempotency-Key', fwdId],
    ]);
    expect(got!.headers['content-length']).toBe(String(body.length));
    expect(got!.headers['host']).toBe(new URL(destBase).host);
    expect((await finalState(fwdId)).status).toBe('succeeded');

    // The forward log shows the original request and what was forwarded.
    const logRes = await tenant.call('GET', `/v1/forwards/${fwdId}`);
    expect(logRes.status).toBe(200);
    const log = (await logRes.json()) as {
      sourceId: string;
      status: string;
      original: { encoding: string; body: string; headers: Array<[string, string]> };
      forwarded: { encoding: string; body: string; headers: Array<[string, string]> };
      attempts: Array<{ attempt: number; httpStatus?: number }>;
    };
    expect(log.sourceId).toBe(source.sourceId);
    expect(log.status).toBe('succeeded');
    expect(log.original.encoding).toBe('base64');
    expect(Buffer.compare(Buffer.from(log.original.body, 'base64'), body)).toBe(0);
    expect(Buffer.compare(Buffer.from(log.forwarded.body, 'base64'), body)).toBe(0);
    expect(log.original.headers).toContainEqual(['X-Sender-Event', 'order.created']);
    expect(log.original.headers).toContainEqual(['Connection', 'keep-alive']);
    expect(log.forwarded.headers).not.toContainEqual(['Connection', 'keep-alive']);
    expect(log.attempts).toMatchObject([{ attempt: 1, httpStatus: 200 }]);

    // Listed among the source's forwards, never among outbound deliveries.
    await expect
      .poll(
        async () => {
          const list = (await (
            await tenant.call('GET', `/v1/forwards?sourceId=${source.sourceId}`)
          ).json()) as {
            data: Array<{ id: string }>;
          };
          return list.data.map((r) => r.id);
        },
        { timeout: 10_000, interval: 200 },
      )
      .toEqual([fwdId]);
    const outbound = (await (await tenant.call('GET', '/v1/deliveries')).json()) as {
      data: Array<{ id: string }>;
    };
    expect(outbound.data.map((r) => r.id)).not.toContain(fwdId);
  });

  it('R-RH-INBOUND: a JSON body goes out as the same text to every destination, each its own forward', async () => {
    const { source } = await createSource({
      destinations: [{ url: `${destBase}/fan-a` }, { url: `${destBase}/fan-b` }],
    });
    const body = Buffer.from('{ "spaced" :  "json",\n  "n": 1.50 }');
    const res = await rawPost(source.ingestUrl, [['Content-Type', 'application/json']], body);
    expect(res.status).toBe(202);
    const accepted = JSON.parse(res.body) as Accepted;
    expect(accepted.forwards.map((f) => f.destinationId).sort()).toEqual(
      source.destinations.map((d) => d.destinationId).sort(),
    );
    const [a] = await dest.waitFor('/fan-a', 1);
    const [b] = await dest.waitFor('/fan-b', 1);
    expect(a!.body.toString('utf8')).toBe(body.toString('utf8'));
    expect(b!.body.toString('utf8')).toBe(body.toString('utf8'));
    expect(a!.headers['webhook-delivery-id']).not.toBe(b!.headers['webhook-delivery-id']);
    const log = (await (await tenant.call('GET', `/v1/forwards/${accepted.forwards[0]!.id}`)).json()) as {
      original: { encoding: string; body: string };
      forwarded: { encoding: string; body: string };
    };
    expect(log.original).toMatchObject({ encoding: 'utf8', body: body.toString('utf8') });
    expect(log.forwarded).toMatchObject({ encoding: 'utf8', body: body.toString('utf8') });
  });

  it('R-RH-INBOUND: a burst of concurrent requests is accepted together (batched starts) and every one is forwarded once, byte-for-byte', async () => {
    const { source } = await createSource({ destinations: [{ url: `${destBase}/burst` }] });
    const bodies = Array.from({ length: 40 }, (_, i) =>
      Buffer.from(`{"burst":${i},"pad":"${'z'.repeat(i * 7)}"}`),
    );
    const answers = await Promise.all(
      bodies.map((b, i) =>
        rawPost(
          source.ingestUrl,
          [
            ['Content-Type', 'application/json'],
            ['X-Seq', String(i)],
          ],
          b,
        ),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(bodies.map(() => 202));
    const ids = answers.map((a) => (JSON.parse(a.body) as Accepted).forwards[0]!.id);
    expect(new Set(ids).size).toBe(40);
    const got = await dest.waitFor('/burst', 40, 60_000);
    await new Promise((r) => setTimeout(r, 1000));
    expect(dest.on('/burst')).toHaveLength(40);
    for (const r of got) {
      const seq = Number(r.headers['x-seq']);
      expect(Buffer.compare(r.body, bodies[seq]!)).toBe(0);
      expect(r.headers['webhook-delivery-id']).toBe(`${ids[seq]}:1`);
    }
    // Some of them went through a batch workflow (the first few start directly).
    await expect
      .poll(
        async () => {
          let n = 0;
          for await (const _ of w.client.workflow.list({ query: `WorkflowType = 'ingestBatchWorkflow'` }))
            n++;
          return n;
        },
        { timeout: 10_000, interval: 250 },
      )
      .toBeGreaterThan(0);
  });

  it('R-RH-INBOUND R-RH-TRANSFORM: a destination with a transformation gets its result; the forward log shows the original and the forwarded body', async () => {
    const { source } = await createSource({
      destinations: [
        { url: `${destBase}/tx`, transformation: '{ "wrapped": payload, "via": headers."x-sender-event" }' },
        { url: `${destBase}/tx-plain` },
      ],
    });
    const bad = await tenant.call('POST', `/v1/sources/${source.sourceId}/destinations`, {
      url: `${destBase}/never`,
      transformation: '{ "unclosed": ',
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: 'invalid_transformation' });
    const body = '{"order":7}';
    const res = await rawPost(
      source.ingestUrl,
      [
        ['Content-Type', 'application/json'],
        ['X-Sender-Event', 'order.paid'],
      ],
      Buffer.from(body),
    );
    expect(res.status).toBe(202);
    const accepted = JSON.parse(res.body) as Accepted;
    const [tx] = await dest.waitFor('/tx', 1);
    const [plain] = await dest.waitFor('/tx-plain', 1);
    expect(JSON.parse(tx!.body.toString('utf8'))).toEqual({ wrapped: { order: 7 }, via: 'order.paid' });
    expect(plain!.body.toString('utf8')).toBe(body);
    const txId = accepted.forwards.find((f) => f.destinationId === source.destinations[0]!.destinationId)!.id;
    const log = (await (await tenant.call('GET', `/v1/forwards/${txId}`)).json()) as {
      original: { body: string };
      forwarded: { body: string; transformation?: string };
    };
    expect(log.original.body).toBe(body);
    expect(JSON.parse(log.forwarded.body)).toEqual({ wrapped: { order: 7 }, via: 'order.paid' });
    expect(log.forwarded.transformation).toContain('wrapped');
  });

  it('R-RH-INBOUND: a Standard Webhooks source accepts a valid signature (the destination can still verify it) and answers 401 problem+json to a bad one', async () => {
    const { source, secret } = await createSource({
      verification: { kind: 'standard_webhooks' },
      destinations: [{ url: `${destBase}/sw` }],
    });
    expect(secret).toMatch(/^whsec_/);
    // Shown once: the source as read back names the scheme, never the secret.
    const read = await (await tenant.call('GET', `/v1/sources/${source.sourceId}`)).text();
    expect(read).toContain('"secretCount":1');
    expect(read).not.toContain(secret!.slice(6));
    const sender = new Webhook(secret!);
    const payload = '{"type":"payment.succeeded","id":"pay_1"}';
    const ts = new Date();
    const signed: Array<[string, string]> = [
      ['content-type', 'application/json'],
      ['webhook-id', 'msg_sw_1'],
      ['webhook-timestamp', String(Math.floor(ts.getTime() / 1000))],
      ['webhook-signature', sender.sign('msg_sw_1', ts, payload)],
    ];
    const ok = await rawPost(source.ingestUrl, signed, Buffer.from(payload));
    expect(ok.status, ok.body).toBe(202);
    const [got] = await dest.waitFor('/sw', 1);
    expect(got!.body.toString('utf8')).toBe(payload);
    // Herald does not re-sign: the sender's signature reaches the destination intact and verifies.
    expect(() =>
      sender.verify(got!.body.toString('utf8'), got!.headers as Record<string, string>),
    ).not.toThrow();

    const tampered = await rawPost(source.ingestUrl, signed, Buffer.from(payload.replace('pay_1', 'pay_2')));
    expect(tampered.status).toBe(401);
    expect(tampered.headers['content-type']).toBe('application/problem+json');
    expect(JSON.parse(tampered.body)).toMatchObject({
      status: 401,
      code: 'invalid_signature',
      reason: 'signature_mismatch',
    });
    const unsigned = await rawPost(
      source.ingestUrl,
      [['content-type', 'application/json']],
      Buffer.from(payload),
    );
    expect(unsigned.status).toBe(401);
    expect(JSON.parse(unsigned.body)).toMatchObject({ code: 'invalid_signature', reason: 'missing_header' });
    // Give a wrongly accepted request time to show up: nothing but the valid one arrives.
    await new Promise((r) => setTimeout(r, 1500));
    expect(dest.on('/sw')).toHaveLength(1);
  });

  it('R-RH-INBOUND: an HMAC source (header name, algorithm, encoding, prefix) accepts a valid signature and refuses a wrong one', async () => {
    const shared = 'github-style-shared-secret-42';
    const { source } = await createSource({
      verification: {
        kind: 'hmac',
        header: 'X-Hub-Signature-256',
        algorithm: 'sha256',
        encoding: 'hex',
        prefix: 'sha256=',
        secrets: [shared],
      },
      destinations: [{ url: `${destBase}/gh` }],
    });
    const payload = Buffer.from('{"action":"opened"}');
    const sig = `sha256=${createHmac('sha256', shared).update(payload).digest('hex')}`;
    const ok = await rawPost(
      source.ingestUrl,
      [
        ['Content-Type', 'application/json'],
        ['X-Hub-Signature-256', sig],
      ],
      payload,
    );
    expect(ok.status, ok.body).toBe(202);
    const [got] = await dest.waitFor('/gh', 1);
    expect(got!.headers['x-hub-signature-256']).toBe(sig);
    const wrong = `sha256=${createHmac('sha256', 'another-secret-entirely').update(payload).digest('hex')}`;
    const bad = await rawPost(source.ingestUrl, [['X-Hub-Signature-256', wrong]], payload);
    expect(bad.status).toBe(401);
    expect(JSON.parse(bad.body)).toMatchObject({ code: 'invalid_signature' });
  });

  it('R-RH-INBOUND: a body over the limit is 413 problem+json (declared or chunked), nothing is forwarded; an unknown source is 404', async () => {
    const { source } = await createSource({ maxBodyBytes: 1024, destinations: [{ url: `${destBase}/big` }] });
    const big = Buffer.alloc(64 * 1024, 0x61);
    const declared = await rawPost(source.ingestUrl, [['content-type', 'text/plain']], big);
    expect(declared.status).toBe(413);
    expect(declared.headers['content-type']).toBe('application/problem+json');
    expect(JSON.parse(declared.body)).toMatchObject({ status: 413, code: 'payload_too_large' });
    const chunked = await rawPost(source.ingestUrl, [['content-type', 'text/plain']], big, { chunked: true });
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.body)).toMatchObject({ code: 'payload_too_large' });
    const fits = await rawPost(source.ingestUrl, [['content-type', 'text/plain']], Buffer.alloc(1024, 0x62));
    expect(fits.status).toBe(202);
    await dest.waitFor('/big', 1);
    await new Promise((r) => setTimeout(r, 1000));
    expect(dest.on('/big')).toHaveLength(1);
    expect(dest.on('/big')[0]!.body.length).toBe(1024);

    const unknown = await rawPost(`${apiBase}/in/src_${'0'.repeat(32)}`, [], Buffer.from('{}'));
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body)).toMatchObject({ code: 'source_not_found' });
    // The ingest URL is public; the tenant API is not.
    expect((await fetch(`${apiBase}/v1/sources`)).status).toBe(401);
  });

  it('R-RH-INBOUND R-RH-CUSTOM R-RH-DLQ: a failing destination ends in the undelivered forwards; a retry is a new forward starting at attempt 1', async () => {
    const { source } = await createSource({
      destinations: [
        { url: `${destBase}/down`, policy: { maxAttempts: 2, retryDelays: [1], timeoutSeconds: 2 } },
      ],
    });
    let up = false;
    dest.respond = (r, res) =>
      r.path === '/down' && !up ? res.writeHead(503).end('down') : res.writeHead(200).end('ok');
    const body = Buffer.from('{"retry":"me"}');
    const res = await rawPost(source.ingestUrl, [['Content-Type', 'application/json']], body);
    expect(res.status).toBe(202);
    const oldId = (JSON.parse(res.body) as Accepted).forwards[0]!.id;
    const dead = await finalState(oldId);
    expect(dead.status).toBe('exhausted');
    expect(dead.attempts.filter((a) => a.kind === 'attempt').map((a) => a.attempt)).toEqual([1, 2]);
    expect(dest.on('/down').map((r) => r.headers['webhook-delivery-id'])).toEqual([
      `${oldId}:1`,
      `${oldId}:2`,
    ]);

    type Row = { id: string; attemptCount: number; lastError: string | null; retriedAs: string | null };
    const deadLetters = async () =>
      (
        (await (
          await tenant.call('GET', `/v1/forwards/dead-letters?sourceId=${source.sourceId}`)
        ).json()) as {
          data: Row[];
        }
      ).data;
    await expect
      .poll(async () => (await deadLetters()).map((r) => r.id), { timeout: 10_000, interval: 200 })
      .toEqual([oldId]);
    expect((await deadLetters())[0]).toMatchObject({
      attemptCount: 2,
      lastError: 'http_503',
      retriedAs: null,
    });
    // Outbound dead letters never list forwards.
    const outboundDl = (await (await tenant.call('GET', '/v1/dead-letters')).json()) as {
      data: Array<{ id: string }>;
    };
    expect(outboundDl.data.map((r) => r.id)).not.toContain(oldId);

    up = true;
    const retry = await tenant.call('POST', `/v1/forwards/dead-letters/${oldId}/retry`);
    expect(retry.status).toBe(202);
    const fresh = (await retry.json()) as { id: string; retryOf: string };
    expect(fresh.retryOf).toBe(oldId);
    expect(fresh.id).not.toBe(oldId);
    const done = await finalState(fresh.id);
    expect(done.status).toBe('succeeded');
    // A fresh forward: its own id, its own log, starting at attempt 1.
    expect(done.attempts.map((a) => a.attempt)).toEqual([1]);
    const retried = dest.on('/down').at(-1)!;
    expect(retried.headers['webhook-delivery-id']).toBe(`${fresh.id}:1`);
    expect(Buffer.compare(retried.body, body)).toBe(0);
    // The old forward is untouched: still exhausted with its two attempts.
    const old = await forwardState(oldId);
    expect(old.status).toBe('exhausted');
    expect(old.attempts.filter((a) => a.kind === 'attempt')).toHaveLength(2);

    const log = (await (await tenant.call('GET', `/v1/forwards/${fresh.id}`)).json()) as {
      retryOf: string;
      original: { body: string };
    };
    expect(log.retryOf).toBe(oldId);
    expect(log.original.body).toBe(body.toString('utf8'));
    // Retrying the same dead letter again does not forward it twice.
    const again = await tenant.call('POST', `/v1/forwards/dead-letters/${oldId}/retry`);
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ code: 'already_retried', forwardId: fresh.id });
    expect((await deadLetters()).find((r) => r.id === oldId)?.retriedAs).toBe(fresh.id);
    // A forward that is not undelivered cannot be retried.
    const notDead = await tenant.call('POST', `/v1/forwards/dead-letters/${fresh.id}/retry`);
    expect(notDead.status).toBe(409);
    // Bulk retry reports each id: here one already retried, one not undelivered, one unknown.
    const bulk = await tenant.call('POST', '/v1/forwards/dead-letters/retry', {
      ids: [oldId, fresh.id, `fwd_${'a'.repeat(32)}`],
    });
    expect(bulk.status).toBe(202);
    const bulkBody = (await bulk.json()) as {
      retried: unknown[];
      failed: Array<{ id: string; code: string }>;
    };
    expect(bulkBody.retried).toEqual([]);
    expect(Object.fromEntries(bulkBody.failed.map((f) => [f.id, f.code]))).toEqual({
      [oldId]: 'already_retried',
      [fresh.id]: 'not_a_dead_letter',
      [`fwd_${'a'.repeat(32)}`]: 'forward_not_found',
    });
  });

  it("R-RH-INBOUND: sources and forwards are the tenant's own; destinations can be added, changed and removed", async () => {
    const { source } = await createSource({ name: 'mine' });
    const other = await newTenant(httpApp(apiBase), 'Other Co');
    expect((await other.call('GET', `/v1/sources/${source.sourceId}`)).status).toBe(404);
    const add = await tenant.call('POST', `/v1/sources/${source.sourceId}/destinations`, {
      url: `${destBase}/added`,
      policy: { retryableStatuses: '5xx,!501' },
    });
    expect(add.status).toBe(201);
    const { destination } = (await add.json()) as { destination: { destinationId: string } };
    const bad = await tenant.call('POST', `/v1/sources/${source.sourceId}/destinations`, {
      url: `${destBase}/x`,
      policy: { retryableStatuses: '5xx,banana' },
    });
    expect(bad.status).toBe(400);
    const res = await rawPost(source.ingestUrl, [], Buffer.from('ping'));
    expect(res.status).toBe(202);
    await dest.waitFor('/added', 1);
    const patch = await tenant.call(
      'PATCH',
      `/v1/sources/${source.sourceId}/destinations/${destination.destinationId}`,
      {
        url: `${destBase}/moved`,
      },
    );
    expect(patch.status).toBe(200);
    await rawPost(source.ingestUrl, [], Buffer.from('pong'));
    await dest.waitFor('/moved', 1);
    const del = await tenant.call(
      'DELETE',
      `/v1/sources/${source.sourceId}/destinations/${destination.destinationId}`,
    );
    expect(del.status).toBe(200);
    expect((await tenant.call('DELETE', `/v1/sources/${source.sourceId}`)).status).toBe(204);
    expect((await rawPost(source.ingestUrl, [], Buffer.from('gone'))).status).toBe(404);
    const doc = (await (await fetch(`${apiBase}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    for (const p of [
      '/in/{sourceId}',
      '/v1/sources',
      '/v1/sources/{id}',
      '/v1/sources/{id}/destinations',
      '/v1/sources/{id}/destinations/{destinationId}',
      '/v1/forwards',
      '/v1/forwards/{id}',
      '/v1/forwards/dead-letters',
      '/v1/forwards/dead-letters/{id}/retry',
      '/v1/forwards/dead-letters/retry',
    ])
      expect(doc.paths, p).toHaveProperty([p]);
  });
});
