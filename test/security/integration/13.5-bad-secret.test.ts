import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../src/api/app.js';
import { startDelivery } from '../../../src/deliveries/start-delivery.js';
import { resolvePolicy } from '../../../src/policy/policy.js';
import type { DeliveryState } from '../../../src/shared/delivery-types.js';
import { deliveryStateQuery } from '../../../src/shared/messages.js';
import { newTenant, type TenantSession } from '../../helpers/api.js';
import { startDevWorker } from '../../helpers/dev-worker.js';
import { Receiver } from '../../helpers/receiver.js';

const PROBLEM = /^application\/problem\+json/;

/**
 * Issue 13.5: `whsec_AAAA` (3 bytes of key) passed the publish schema and failed only in
 * the worker, outside the send's try: the delivery repeated `worker_error` every 5 s for
 * ever, never spending an attempt.
 */
describe('13.5 R-SIGN: a secret the signer refuses never starts a delivery that cannot end', () => {
  const receiver = new Receiver();
  let base = '';
  let w: Awaited<ReturnType<typeof startDevWorker>>;
  let tenant: TenantSession;

  beforeAll(async () => {
    [w, base] = await Promise.all([startDevWorker(), receiver.start()]);
    tenant = await newTenant(createApp({ client: w.client, config: w.config }), 'Bad Secret Co');
  });
  afterAll(async () => {
    await w?.stop();
    await receiver.stop();
  });

  it('13.5 R-SIGN: POST /v1/events with an ad-hoc target secret whsec_AAAA is a 400 invalid_secret naming the field; nothing is sent', async () => {
    const res = await tenant.call('POST', '/v1/events', {
      type: 'bad.secret',
      payload: {},
      targets: [{ url: `${base}/adhoc`, secrets: ['whsec_AAAA'] }],
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(PROBLEM);
    const body = (await res.json()) as { code: string; detail: string };
    expect(body.code).toBe('invalid_secret');
    expect(body.detail).toMatch(/^targets\.0\.secrets\.0: /);
    expect(body.detail).not.toContain('AAAA');
    // No event was recorded for it, so no delivery can exist.
    const list = (await (await tenant.call('GET', '/v1/events')).json()) as { data: unknown[] };
    expect(list.data).toHaveLength(0);
    expect(receiver.requests).toHaveLength(0);
  });

  it('13.5 R-RH-INBOUND: POST /v1/sources with a standard_webhooks secret whsec_AAAA is a 400 invalid_secret naming the field', async () => {
    const res = await tenant.call('POST', '/v1/sources', {
      verification: { kind: 'standard_webhooks', secrets: ['whsec_AAAA'] },
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(PROBLEM);
    const body = (await res.json()) as { code: string; detail: string };
    expect(body.code).toBe('invalid_secret');
    expect(body.detail).toMatch(/^verification\.secrets\.0: /);
  });

  it('13.5 R-SIGN: a delivery that reaches the worker with such a secret anyway (started through Temporal) spends its attempts as invalid_secret and ends', async () => {
    const deliveryId = `dl_13_5_${Math.random().toString(36).slice(2, 10)}`;
    await startDelivery(w.client, w.config.HERALD_TASK_QUEUE, {
      deliveryId,
      tenantId: 'tn_13_5_none',
      endpointId: 'target:13.5',
      event: {
        id: `evt_${deliveryId}`,
        type: 'bad.secret',
        occurredAt: new Date().toISOString(),
        body: '{}',
      },
      target: { url: `${base}/through-temporal`, secrets: ['whsec_AAAA'] },
      policy: resolvePolicy('standard', { maxAttempts: 2, retryDelays: [1], timeoutSeconds: 2 }),
      createdAt: new Date().toISOString(),
    });
    const handle = w.client.workflow.getHandle(deliveryId);
    await expect
      .poll(async () => ((await handle.query(deliveryStateQuery)) as DeliveryState).status, {
        timeout: 30_000,
      })
      .toBe('exhausted');
    const s = (await handle.query(deliveryStateQuery)) as DeliveryState;
    const attempts = s.attempts.filter((a) => a.kind === 'attempt');
    expect(attempts.map((a) => a.code)).toEqual(['invalid_secret', 'invalid_secret']);
    expect(s.attempts.some((a) => a.code === 'worker_error')).toBe(false);
    expect(receiver.requests.filter((r) => r.path === '/through-temporal')).toHaveLength(0);
  });
});
