import { setTimeout as delay } from 'node:timers/promises';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@temporalio/client';
import { createApp } from '../../src/api/app.js';
import { resolvePolicy } from '../../src/policy/policy.js';
import type { EventInput } from '../../src/shared/event-types.js';
import { deliveryIdFor, eventWorkflowId } from '../../src/shared/ids.js';
import { EVENT_WORKFLOW } from '../../src/shared/names.js';
import type { Config } from '../../src/config.js';
import { deliveryStateQuery } from '../../src/shared/messages.js';
import { statusClause } from '../../src/store/visibility.js';
import { generateSecret } from '../../src/signing/standard-webhooks.js';
import { createHeraldWorker } from '../../src/worker.js';
import { newTenant } from '../helpers/api.js';
import { Receiver } from '../helpers/receiver.js';
import { devServerClients, testConfig, workflowBundle } from '../helpers/temporal.js';

describe('thin slice on the dev server (foundation)', () => {
  let t: Awaited<ReturnType<typeof devServerClients>>;
  let config: Config;
  let stopWorker: () => Promise<void>;
  const receiver = new Receiver();
  let base: string;

  beforeAll(async () => {
    [t, base] = await Promise.all([devServerClients(), receiver.start()]);
    config = testConfig();
    const { worker, close } = await createHeraldWorker({
      connection: t.nativeConnection,
      config,
      workflowBundle: workflowBundle(),
    });
    const running = worker.run();
    stopWorker = async () => {
      worker.shutdown();
      await running;
      await close();
    };
  });
  afterAll(async () => {
    await stopWorker?.();
    await receiver.stop();
    await t?.close();
  });

  it('R-SIGN R-STATUS: POST /v1/events delivers one signed request and the workflow is findable by its search attributes', async () => {
    const app = createApp({ client: t.client, config });
    const tenant = await newTenant(app);
    const secret = generateSecret();
    const res = await tenant.call('POST', '/v1/events', {
      type: 'invoice.paid',
      payload: { amount: 42 },
      targets: [{ url: `${base}/in`, secrets: [secret] }],
    });
    expect(res.status).toBe(202);
    const body = (await res.json()) as { eventId: string; deliveries: Array<{ id: string }> };
    expect(body.deliveries).toHaveLength(1);
    const deliveryId = body.deliveries[0]!.id;

    await receiver.waitFor(1);
    const got = receiver.requests[0]!;
    const verified = new Webhook(secret).verify(got.body, got.headers as Record<string, string>) as {
      type: string;
      data: unknown;
    };
    expect(verified).toMatchObject({ type: 'invoice.paid', data: { amount: 42 } });
    expect(got.headers['webhook-id']).toBe(body.eventId);

    const handle = t.client.workflow.getHandle(deliveryId);
    // Wait for its status (a delivery started before issue 16 stayed open after its round).
    await expect
      .poll(async () => (await handle.query(deliveryStateQuery)).status, { timeout: 20_000 })
      .toBe('succeeded');
    const state = await handle.query(deliveryStateQuery);
    expect(state.status).toBe('succeeded');
    expect(state.attempts).toHaveLength(1);

    // Visibility is eventually consistent: poll briefly for the indexed status. Issue 16: a
    // succeeded delivery costs no upsert; its status in the index is HeraldStatus together
    // with the closed run's own status (statusClause, the clause every list uses).
    const query = `HeraldEventId = '${body.eventId}' AND ${statusClause('succeeded')} AND HeraldTenant = '${tenant.tenantId}' AND HeraldEventType = 'invoice.paid'`;
    let found: string[] = [];
    for (let i = 0; i < 50 && found.length === 0; i++) {
      found = [];
      for await (const wf of t.client.workflow.list({ query })) found.push(wf.workflowId);
      if (found.length === 0) await delay(200);
    }
    expect(found).toEqual([deliveryId]);
  });

  it('R-IDEMP: publishing the same event id twice starts no second delivery', async () => {
    const app = createApp({ client: t.client, config });
    const tenant = await newTenant(app);
    const before = receiver.requests.length;
    const payload = {
      id: `evt_idem_${Date.now()}`,
      type: 'x.y',
      payload: {},
      targets: [{ url: `${base}/idem`, secrets: [generateSecret()] }],
    };
    const send = () => tenant.call('POST', '/v1/events', payload);
    const [a, b] = await Promise.all([send(), send()]);
    expect([a.status, b.status]).toEqual([202, 202]);
    const ja = (await a.json()) as { deliveries: Array<{ id: string }> };
    const jb = (await b.json()) as { deliveries: Array<{ id: string }> };
    // Same key, same answer.
    expect(jb).toEqual(ja);
    const handle = t.client.workflow.getHandle(ja.deliveries[0]!.id);
    await expect
      .poll(async () => (await handle.query(deliveryStateQuery)).status, { timeout: 20_000 })
      .toBe('succeeded');
    await delay(300);
    expect(receiver.requests.length - before).toBe(1);
  });

  it('R-IDEMP: a repeated publish finishes a fan-out that a crashed API left half done; eager starts deliver', async () => {
    // The API as `npm start` runs it: its client shares the worker's NativeConnection.
    const eagerClient = new Client({
      connection: t.nativeConnection,
      namespace: t.client.options.namespace,
      dataConverter: t.client.options.dataConverter,
    });
    const app = createApp({ client: eagerClient, config, eagerStart: true });
    const tenant = await newTenant(app);
    const secret = generateSecret();
    const eventId = `evt_half_${Date.now()}`;
    const url = `${base}/half`;
    const occurredAt = new Date().toISOString();
    const event = {
      id: eventId,
      type: 'x.half',
      occurredAt,
      body: JSON.stringify({ type: 'x.half', timestamp: occurredAt, data: {} }),
    };
    const deliveryId = deliveryIdFor(tenant.tenantId, eventId, url);
    const input: EventInput = {
      tenantId: tenant.tenantId,
      event,
      deliveries: [
        {
          deliveryId,
          tenantId: tenant.tenantId,
          endpointId: 'target:half',
          target: { url, secrets: [secret] },
          policy: resolvePolicy('standard'),
          createdAt: occurredAt,
        },
      ],
      skipped: [],
      deliveriesStarted: true,
    };
    // What a crash between the record and the deliveries leaves behind: a record, no delivery.
    await t.client.workflow.execute(EVENT_WORKFLOW, {
      workflowId: eventWorkflowId(tenant.tenantId, eventId),
      taskQueue: config.HERALD_TASK_QUEUE,
      args: [input],
    });
    await delay(500);
    expect(receiver.requests.filter((r) => r.path === '/half')).toHaveLength(0);

    const res = await tenant.call('POST', '/v1/events', {
      id: eventId,
      type: 'x.half',
      payload: {},
      targets: [{ url, secrets: [secret] }],
    });
    expect(res.status).toBe(202);
    expect(((await res.json()) as { deliveries: Array<{ id: string }> }).deliveries).toEqual([
      { id: deliveryId, endpointId: 'target:half' },
    ]);
    await expect
      .poll(() => receiver.requests.filter((r) => r.path === '/half').length, { timeout: 20_000 })
      .toBe(1);
    const got = receiver.requests.find((r) => r.path === '/half')!;
    expect(got.headers['idempotency-key']).toBe(deliveryId);
    expect(() => new Webhook(secret).verify(got.body, got.headers as Record<string, string>)).not.toThrow();
  });

  it('R-URL: a bad target URL and malformed JSON are answered with problem+json, never a crash', async () => {
    const app = createApp({ client: t.client, config });
    const tenant = await newTenant(app);
    const bad = await tenant.call('POST', '/v1/events', {
      type: 'a',
      payload: 1,
      targets: [{ url: 'http://example.com/x', secrets: [generateSecret()] }],
    });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toContain('application/problem+json');
    expect(((await bad.json()) as { code: string }).code).toBe('not_https');

    const malformed = await tenant.call('POST', '/v1/events', '{"type":');
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { code: string }).code).toBe('malformed_json');
  });
});
