import { execFileSync } from 'node:child_process';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { HeraldClient } from '../../src/client.js';
import { deliveryStateQuery } from '../../src/shared/messages.js';
import { newTenant, type TenantSession } from '../helpers/api.js';
import { startDevWorker } from '../helpers/dev-worker.js';
import { Receiver } from '../helpers/receiver.js';

describe('publishing straight through Temporal, and what Temporal keeps', () => {
  let w: Awaited<ReturnType<typeof startDevWorker>>;
  let tenant: TenantSession;
  const receiver = new Receiver();
  let base: string;
  beforeAll(async () => {
    [w, base] = await Promise.all([startDevWorker(), receiver.start()]);
    tenant = await newTenant(createApp({ client: w.client, config: w.config }));
  });
  afterAll(async () => {
    await w?.stop();
    await receiver.stop();
  });

  it('R-IDEMP R-SIGN: HeraldClient.publish delivers a signed event to an endpoint, once per event id', async () => {
    const created = await tenant.call('POST', '/v1/endpoints', { url: `${base}/typed`, preset: 'standard' });
    const { endpoint, secret } = (await created.json()) as {
      endpoint: { endpointId: string };
      secret: string;
    };
    const herald = new HeraldClient(w.client, w.config);
    const opts = {
      tenantId: tenant.tenantId,
      type: 'typed.client',
      payload: { via: 'temporal' },
      eventId: `evt_typed_${Date.now()}`,
      targets: [{ endpointId: endpoint.endpointId, preset: 'standard' as const }],
    };
    const [a, b] = await Promise.all([herald.publish(opts), herald.publish(opts)]);
    expect(b).toEqual(a);
    expect(a.deliveries).toHaveLength(1);
    const handle = w.client.workflow.getHandle(a.deliveries[0]!.id);
    await expect
      .poll(async () => (await handle.query(deliveryStateQuery)).status, { timeout: 20_000 })
      .toBe('succeeded');
    expect(receiver.requests).toHaveLength(1);
    const got = receiver.requests[0]!;
    expect(new Webhook(secret).verify(got.body, got.headers as Record<string, string>)).toMatchObject({
      type: 'typed.client',
      data: { via: 'temporal' },
    });
    // The API reads it back like any other event.
    const ev = await tenant.call('GET', `/v1/events/${opts.eventId}`);
    expect(ev.status).toBe(200);

    // The endpoint's signing secret lives in its workflow's history only encrypted.
    const history = execFileSync(
      inject('temporalCliPath'),
      [
        'workflow',
        'show',
        '--workflow-id',
        endpoint.endpointId,
        '--address',
        inject('temporalAddress'),
        '--output',
        'json',
      ],
      { encoding: 'utf8' },
    );
    expect(history).toContain('workflowExecutionStartedEventAttributes');
    expect(history).not.toContain(secret);
    expect(history).not.toContain(secret.slice('whsec_'.length));
    expect(history).not.toContain(tenant.apiKey);
  });

  it('14.17 R-DT-REPLAY: 30 replay requests in a minute are accepted and the 31st is answered 429 replay_rate_limited; a bulk replay of several deliveries counts once', async () => {
    // Two Dong Tien deliveries that fail their only attempt: dead letters a bulk replay picks up.
    const fresh = await newTenant(createApp({ client: w.client, config: w.config }));
    receiver.respondWith((req, _i, res) => res.writeHead(req.path === '/dt-limit' ? 500 : 200).end());
    const created = await fresh.call('POST', '/v1/endpoints', {
      url: `${base}/dt-limit`,
      preset: 'dongtien',
      policy: { maxAttempts: 1 },
    });
    expect(created.status).toBe(201);
    const { endpoint } = (await created.json()) as { endpoint: { endpointId: string } };
    for (const i of [1, 2]) {
      const r = await fresh.call('POST', '/v1/events', { type: 'limit.test', payload: { i } });
      expect(r.status).toBe(202);
    }
    const ready = async () => {
      const r = await fresh.call('GET', `/v1/replay/failures/preview?endpointId=${endpoint.endpointId}`);
      return ((await r.json()) as { counts: { ready: number } }).counts.ready;
    };
    await expect.poll(ready, { timeout: 30_000, interval: 250 }).toBe(2);

    // The limit is per calendar minute: all 31 requests must fall in the same one.
    while (new Date().getUTCSeconds() > 30) await new Promise((r) => setTimeout(r, 250));
    const minute = Math.floor(Date.now() / 60_000);
    const bulk = () => fresh.call('POST', `/v1/replay/failures?endpointId=${endpoint.endpointId}`);
    const first = await bulk();
    expect(first.status).toBe(202);
    expect(((await first.json()) as { replayed: string[] }).replayed).toHaveLength(2);
    for (let i = 2; i <= 30; i++) expect((await bulk()).status, `request ${i}`).toBe(202);
    const refused = await bulk();
    expect(Math.floor(Date.now() / 60_000)).toBe(minute);
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as { code: string };
    expect(body.code).toBe('replay_rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  }, 120_000);
});
