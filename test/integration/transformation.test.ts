import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import type { AttemptRecord, DeliveryState } from '../../src/shared/delivery-types.js';
import { deliveryStateQuery } from '../../src/shared/messages.js';
import { TransformSandbox } from '../../src/transform/sandbox.js';
import { newTenant, type TenantSession } from '../helpers/api.js';
import { startDevWorker } from '../helpers/dev-worker.js';
import { Receiver } from '../helpers/receiver.js';

// The original payload carries this; it must never reach a receiver behind a transformation.
const CARD = '4242424242424242';
const LIMIT_MS = 2000;
const LOOP = '( $f := function(){ $f() }; $f() )';
const MAPPING =
  '{ "body": { "invoice": payload.invoiceId, "cents": payload.amount, "kind": type }, "headers": { "x-kind": type } }';

describe('R-RH-TRANSFORM: endpoint transformations on the dev server', () => {
  let w: Awaited<ReturnType<typeof startDevWorker>>;
  const receiver = new Receiver();
  const sandbox = new TransformSandbox({ processes: 1, timeoutMs: LIMIT_MS });
  let base: string;
  let tenant: TenantSession;

  beforeAll(async () => {
    [w, base] = await Promise.all([
      startDevWorker({ HERALD_TRANSFORM_TIMEOUT_MS: String(LIMIT_MS), HERALD_TRANSFORM_PROCESSES: '2' }),
      receiver.start(),
    ]);
    tenant = await newTenant(createApp({ client: w.client, config: w.config, sandbox }));
  });
  afterAll(async () => {
    await w?.stop();
    await receiver.stop();
    await sandbox.close();
  });

  async function endpoint(path: string, eventType: string, extra: Record<string, unknown>) {
    const res = await tenant.call('POST', '/v1/endpoints', {
      url: `${base}${path}`,
      preset: 'standard',
      eventTypes: [eventType],
      ...extra,
    });
    expect(res.status, await res.clone().text()).toBe(201);
    return (await res.json()) as {
      endpoint: { endpointId: string; config: Record<string, unknown> };
      secret: string;
    };
  }

  async function publish(type: string) {
    const res = await tenant.call('POST', '/v1/events', {
      type,
      payload: { invoiceId: 'in_1', amount: 4200, card: CARD },
    });
    expect(res.status).toBe(202);
    return (await res.json()) as { deliveries: Array<{ id: string; endpointId: string }> };
  }

  const state = (id: string): Promise<DeliveryState> =>
    w.client.workflow.getHandle(id).query(deliveryStateQuery);

  it('R-RH-TRANSFORM: a syntax error is a 400 naming the problem; PATCH sets and null clears it', async () => {
    const bad = await tenant.call('POST', '/v1/endpoints', {
      url: `${base}/never`,
      transformation: '{ "a": payload.amount / }',
    });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toMatch(/application\/problem\+json/);
    const problem = (await bad.json()) as { code: string; detail: string; path: string; position: number };
    expect(problem).toMatchObject({ code: 'invalid_transformation', path: 'transformation' });
    expect(problem.detail).toMatch(/^S0\d{3}: .+ \(at position \d+\)$/);

    const id = (await endpoint('/edited', 'tx.edited', {})).endpoint.endpointId;
    expect((await tenant.call('PATCH', `/v1/endpoints/${id}`, { transformation: 'payload.(' })).status).toBe(
      400,
    );
    const set = await tenant.call('PATCH', `/v1/endpoints/${id}`, { transformation: 'payload' });
    expect(((await set.json()) as { config: Record<string, unknown> }).config.transformation).toBe('payload');
    const cleared = await tenant.call('PATCH', `/v1/endpoints/${id}`, { transformation: null });
    expect(cleared.status).toBe(200);
    expect(
      ((await cleared.json()) as { config: Record<string, unknown> }).config.transformation,
    ).toBeUndefined();
  });

  it('R-RH-TRANSFORM: the dry run shows the request, or the failure with its reason', async () => {
    const event = { type: 'invoice.paid', payload: { invoiceId: 'in_1', amount: 4200 } };
    const ok = await tenant.call('POST', '/v1/transformations/dry-run', { transformation: MAPPING, event });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-kind': 'invoice.paid' },
      body: '{"invoice":"in_1","cents":4200,"kind":"invoice.paid"}',
    });

    const t0 = Date.now();
    const loop = await tenant.call('POST', '/v1/transformations/dry-run', { transformation: LOOP, event });
    expect(loop.status).toBe(422);
    expect(await loop.json()).toMatchObject({
      code: 'transformation_failed',
      detail: expect.stringMatching(/2000/),
    });
    expect(Date.now() - t0).toBeLessThan(LIMIT_MS + 3000);

    const thrown = await tenant.call('POST', '/v1/transformations/dry-run', {
      transformation: '$error("missing " & payload.x)',
      event: { type: 'x', payload: { x: 'thing' } },
    });
    expect(await thrown.json()).toMatchObject({
      code: 'transformation_failed',
      detail: expect.stringContaining('missing thing'),
    });

    const syntax = await tenant.call('POST', '/v1/transformations/dry-run', { transformation: '(', event });
    expect(await syntax.json()).toMatchObject({ code: 'invalid_transformation' });

    const doc = (await (
      await createApp({ client: w.client, config: w.config, sandbox }).request('/openapi.json')
    ).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    expect(Object.keys(doc.paths['/v1/transformations/dry-run']!.post!.responses)).toEqual(
      expect.arrayContaining(['200', '400', '422']),
    );
  });

  it('R-RH-TRANSFORM: a mapping changes the body; the signature covers the body sent', async () => {
    const { secret } = await endpoint('/mapped', 'tx.mapped', { transformation: MAPPING });
    await publish('tx.mapped');
    await expect
      .poll(() => receiver.requests.some((r) => r.path === '/mapped'), { timeout: 15_000, interval: 50 })
      .toBe(true);
    const got = receiver.requests.find((r) => r.path === '/mapped')!;
    expect(JSON.parse(got.body)).toEqual({ invoice: 'in_1', cents: 4200, kind: 'tx.mapped' });
    expect(got.headers['x-kind']).toBe('tx.mapped');
    expect(got.body).not.toContain(CARD);
    expect(() => new Webhook(secret).verify(got.body, got.headers as Record<string, string>)).not.toThrow();
  });

  it(
    'R-RH-TRANSFORM: a transformation that loops forever fails each attempt (transformation_failed) on schedule, ' +
      'sends nothing, and another endpoint of the same event is delivered meanwhile',
    async () => {
      const policy = { maxAttempts: 3, retryDelays: [2], timeoutSeconds: 2 };
      const loop = await endpoint('/loop', 'tx.loop', { transformation: LOOP, policy });
      await endpoint('/other', 'tx.loop', { transformation: MAPPING });
      const publishedAt = Date.now();
      const { deliveries } = await publish('tx.loop');
      const loopDelivery = deliveries.find((d) => d.endpointId === loop.endpoint.endpointId)!;

      // The other endpoint's delivery arrives while the looping one is still being evaluated.
      await expect
        .poll(() => receiver.requests.filter((r) => r.path === '/other').length, {
          timeout: 15_000,
          interval: 50,
        })
        .toBe(1);
      const otherAt = receiver.requests.find((r) => r.path === '/other')!.at;

      await expect
        .poll(async () => (await state(loopDelivery.id)).status, { timeout: 60_000, interval: 250 })
        .toBe('exhausted');
      const s = await state(loopDelivery.id);
      const attempts = s.attempts.filter((a: AttemptRecord) => a.kind === 'attempt');
      expect(attempts).toHaveLength(3);
      for (const a of attempts) {
        expect(a).toMatchObject({ code: 'transformation_failed', detail: expect.stringMatching(/2000/) });
        expect(a.httpStatus).toBeUndefined();
        // Each attempt ran to the limit, not much past it.
        const ran = Date.parse(a.finishedAt) - Date.parse(a.startedAt);
        expect(ran).toBeGreaterThanOrEqual(LIMIT_MS - 100);
        expect(ran).toBeLessThan(LIMIT_MS + 3000);
      }
      // The schedule: 2 s (jitter 0.9-1.1) after each failure.
      for (let i = 1; i < attempts.length; i++) {
        const wait = Date.parse(attempts[i]!.startedAt) - Date.parse(attempts[i - 1]!.finishedAt);
        expect(wait).toBeGreaterThanOrEqual(1700);
        expect(wait).toBeLessThan(4000);
      }
      expect(s.lastCode).toBe('transformation_failed');
      expect(otherAt).toBeLessThan(Date.parse(attempts[0]!.finishedAt));
      expect(otherAt - publishedAt).toBeLessThan(LIMIT_MS + 1000);

      expect(receiver.requests.filter((r) => r.path === '/loop')).toHaveLength(0);
      expect(receiver.requests.some((r) => r.body.includes(CARD))).toBe(false);
    },
  );
});
