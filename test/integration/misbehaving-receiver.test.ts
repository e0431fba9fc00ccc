import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import type { DeliveryState } from '../../src/shared/delivery-types.js';
import { deliveryStateQuery } from '../../src/shared/messages.js';
import { generateSecret } from '../../src/signing/standard-webhooks.js';
import { startDevWorker } from '../helpers/dev-worker.js';
import { freePort } from '../helpers/ports.js';
import { newTenant, type TenantSession } from '../helpers/api.js';
import { Receiver, type ReceivedRequest, type Responder } from '../helpers/receiver.js';

type Target = { url: string; preset?: string; policy?: Record<string, unknown> };

describe('a misbehaving receiver on the dev server (real time, short schedules)', () => {
  let w: Awaited<ReturnType<typeof startDevWorker>>;
  const receiver = new Receiver();
  let base: string;
  const secret = generateSecret();
  const fast = { maxAttempts: 3, retryDelays: [1], timeoutSeconds: 1 };

  let tenant: TenantSession;
  beforeAll(async () => {
    [w, base] = await Promise.all([startDevWorker(), receiver.start()]);
    tenant = await newTenant(createApp({ client: w.client, config: w.config }));
  });
  afterAll(async () => {
    await w?.stop();
    await receiver.stop();
  });

  async function publish(path: string, respond: Responder | undefined, target: Partial<Target> = {}) {
    // Each test's responder sees its own path's request count, not the receiver's total.
    if (respond)
      receiver.respondWith((req, _i, res) =>
        respond(req, receiver.requests.filter((r) => r.path === req.path).length - 1, res),
      );
    const res = await tenant.call('POST', '/v1/events', {
      type: 'misbehave.test',
      payload: { path },
      targets: [{ url: `${base}${path}`, secrets: [secret], policy: fast, ...target }],
    });
    expect(res.status).toBe(202);
    const { deliveries } = (await res.json()) as { deliveries: Array<{ id: string }> };
    const handle = w.client.workflow.getHandle(deliveries[0]!.id);
    // Deliveries stay open for replay after they end: wait for a final status instead of the result.
    await expect
      .poll(async () => (await handle.query(deliveryStateQuery)).status, { timeout: 30_000, interval: 100 })
      .toMatch(/succeeded|exhausted|failed|dead/);
    const state: DeliveryState = await handle.query(deliveryStateQuery);
    const requests = receiver.requests.filter((r) => r.path === path);
    return { state, requests, deliveryId: deliveries[0]!.id };
  }

  function checkEveryRequest(requests: ReceivedRequest[], deliveryId: string) {
    const ids = new Set(requests.map((r) => r.headers['webhook-id']));
    expect(ids.size).toBe(1);
    requests.forEach((r, i) => {
      expect(() => new Webhook(secret).verify(r.body, r.headers as Record<string, string>)).not.toThrow();
      expect(r.headers['webhook-delivery-id']).toBe(`${deliveryId}:${i + 1}`);
      expect(r.headers['idempotency-key']).toBe(deliveryId);
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.body).toBe(requests[0]!.body);
    });
  }

  it('R-SIGN R-HDR R-RESP: a 500 then a 200 is two signed attempts and a success', async () => {
    const { state, requests, deliveryId } = await publish('/flaky', (_r, i, res) =>
      i % 2 === 0 ? res.writeHead(500).end('x'.repeat(2000)) : res.writeHead(200).end('ok'),
    );
    expect(state.status).toBe('succeeded');
    expect(requests).toHaveLength(2);
    checkEveryRequest(requests, deliveryId);
    expect(state.attempts[0]).toMatchObject({ httpStatus: 500, code: 'http_500' });
    expect(state.attempts[0]!.responseBody).toHaveLength(512);
    // Each attempt is signed at send time (R-SIGN): timestamps never go backwards.
    const ts = requests.map((r) => Number(r.headers['webhook-timestamp']));
    expect(ts[1]).toBeGreaterThanOrEqual(ts[0]!);
  });

  it('R-DELAY R-RA: a 429 with Retry-After: 3 waits about 3 s, longer than the 1 s step', async () => {
    const { state, requests } = await publish('/busy', (_r, i, res) =>
      i === 0 ? res.writeHead(429, { 'retry-after': '3' }).end() : res.writeHead(204).end(),
    );
    expect(state.status).toBe('succeeded');
    expect(requests[1]!.at - requests[0]!.at).toBeGreaterThanOrEqual(2900);
  });

  it('R-NOREDIR: a 301 is a failed attempt `redirect_not_allowed` and its Location is never fetched', async () => {
    const { state, requests, deliveryId } = await publish('/moved', (req, _i, res) =>
      req.path === '/moved'
        ? res.writeHead(301, { location: `${base}/elsewhere` }).end()
        : res.writeHead(200).end(),
    );
    expect(state.status).toBe('exhausted');
    expect(requests).toHaveLength(3);
    checkEveryRequest(requests, deliveryId);
    expect(state.attempts.every((a) => a.code === 'redirect_not_allowed')).toBe(true);
    expect(receiver.requests.some((r) => r.path === '/elsewhere')).toBe(false);
  });

  it('R-ERRCODES: a 410 ends the standard delivery after one attempt with `gone`', async () => {
    const { state, requests } = await publish('/gone', (_r, _i, res) => res.writeHead(410).end());
    expect(requests).toHaveLength(1);
    expect(state.status).toBe('exhausted');
    expect(state.lastCode).toBe('gone');
  });

  it('R-TIMEOUT: a response slower than the 1 s timeout is `timeout`, and retried', async () => {
    const { state, requests } = await publish('/slow', (_r, i, res) => {
      if (i < 2) setTimeout(() => res.writeHead(200).end('late'), 2500);
      else res.writeHead(200).end();
    });
    expect(state.attempts.filter((a) => a.code === 'timeout')).toHaveLength(2);
    expect(state.status).toBe('succeeded');
    expect(requests).toHaveLength(3);
  });

  it('R-ERRCODES: a connection reset (RST) or hang-up is `network_ECONNRESET`, and retried', async () => {
    const { state } = await publish('/reset', (_r, i, res) => {
      if (i === 0) res.socket?.resetAndDestroy();
      else if (i === 1) res.socket?.destroy();
      else res.writeHead(200).end();
    });
    expect(state.attempts.map((a) => a.code)).toEqual([
      'network_ECONNRESET',
      'network_ECONNRESET',
      undefined,
    ]);
    expect(state.status).toBe('succeeded');
  });

  it('R-ERRCODES: a closed port is `network_ECONNREFUSED` on every attempt, then exhausted', async () => {
    const port = await freePort();
    const res = await tenant.call('POST', '/v1/events', {
      type: 'closed.port',
      payload: {},
      targets: [{ url: `http://127.0.0.1:${port}/x`, secrets: [secret], policy: fast }],
    });
    const { deliveries } = (await res.json()) as { deliveries: Array<{ id: string }> };
    const handle = w.client.workflow.getHandle(deliveries[0]!.id);
    await expect
      .poll(async () => (await handle.query(deliveryStateQuery)).status, { timeout: 30_000, interval: 100 })
      .toBe('exhausted');
    const state = await handle.query(deliveryStateQuery);
    expect(state.attempts.map((a) => a.code)).toEqual(Array(3).fill('network_ECONNREFUSED'));
  });

  it('R-SSRF: 127.0.0.2 is off the allowlist: refused with `private_address`, no packet sent', async () => {
    const other = new Receiver();
    let otherBase: string;
    try {
      otherBase = await other.start('127.0.0.2');
    } catch {
      return; // no 127.0.0.2 on this host's loopback
    }
    const port = new URL(otherBase).port;
    const res = await tenant.call('POST', '/v1/events', {
      type: 'ssrf.test',
      payload: {},
      targets: [{ url: `http://127.0.0.2:${port}/x`, secrets: [secret], policy: fast }],
    });
    const { deliveries } = (await res.json()) as { deliveries: Array<{ id: string }> };
    const handle = w.client.workflow.getHandle(deliveries[0]!.id);
    await expect
      .poll(async () => (await handle.query(deliveryStateQuery)).status, { timeout: 30_000, interval: 100 })
      .toBe('exhausted');
    const state = await handle.query(deliveryStateQuery);
    expect(state.attempts.map((a) => a.code)).toEqual(Array(3).fill('private_address'));
    expect(other.requests).toHaveLength(0);
    await other.stop();
  });
});
