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

  it('R-DT-REPLAY: more than 30 replay requests in a minute are answered 429 replay_rate_limited', async () => {
    let limited: Response | undefined;
    // The window is the calendar minute: 61 requests hit the limit even across a boundary.
    for (let i = 0; i < 61 && !limited; i++) {
      const r = await tenant.call('POST', '/v1/replay/failures');
      if (r.status === 429) limited = r;
      else expect(r.status).toBe(202);
    }
    expect(limited?.status).toBe(429);
    const body = (await limited!.json()) as { code: string };
    expect(body.code).toBe('replay_rate_limited');
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
