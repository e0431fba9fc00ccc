import { Connection } from '@temporalio/client';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import type { HealthStatus } from '../../src/health/types.js';
import { pauseEndpointUpdate } from '../../src/shared/endpoint-messages.js';
import { ENDPOINT_WORKFLOW } from '../../src/shared/names.js';
import { SA_ENDPOINT, SA_PRESET, SA_TENANT } from '../../src/shared/search-attributes.js';
import { generateSecret } from '../../src/signing/standard-webhooks.js';
import { TEST_OPERATOR_KEY, httpApp, newTenant, type TenantSession } from '../helpers/api.js';
import { startDevWorker } from '../helpers/dev-worker.js';
import { HeraldProcess } from '../helpers/herald-process.js';
import { freePort } from '../helpers/ports.js';
import { Receiver } from '../helpers/receiver.js';

/**
 * Issue 14.14: operators find endpoints by health in the Web UI. Endpoint workflows carry
 * `HeraldEndpointStatus` (the health module's status names), set at start and upserted on
 * each status change; this asks the dev server's visibility API exactly as the Web UI does.
 */
describe('14.14 HeraldEndpointStatus: endpoints can be found by health', () => {
  let w: Awaited<ReturnType<typeof startDevWorker>>;
  let t: TenantSession;
  const receiver = new Receiver();
  let base: string;

  beforeAll(async () => {
    [w, base] = await Promise.all([startDevWorker(), receiver.start()]);
    t = await newTenant(createApp({ client: w.client, config: w.config }), '14.14');
    receiver.respondWith((req, _i, res) => res.writeHead(req.path === '/gone' ? 410 : 200).end());
  });
  afterAll(async () => {
    await w?.stop();
    await receiver.stop();
  });

  /** The tenant's endpoint ids that visibility lists under `status`. */
  const listed = async (status: HealthStatus): Promise<string[]> => {
    const ids: string[] = [];
    const query = `WorkflowType = '${ENDPOINT_WORKFLOW}' AND HeraldTenant = '${t.tenantId}' AND HeraldEndpointStatus = '${status}'`;
    for await (const wf of w.client.workflow.list({ query })) ids.push(wf.workflowId);
    return ids.sort();
  };

  const createEndpoint = async (path: string, eventTypes: string[]): Promise<string> => {
    const res = await t.call('POST', '/v1/endpoints', {
      url: `${base}${path}`,
      preset: 'standard',
      eventTypes,
    });
    expect(res.status, await res.clone().text()).toBe(201);
    return ((await res.json()) as { endpoint: { endpointId: string } }).endpoint.endpointId;
  };

  it('14.14 R-SMENGO-HEALTH: a standard endpoint disabled by a 410 is found by HeraldEndpointStatus = disabled; a healthy one by active', async () => {
    const healthy = await createEndpoint('/ok', ['ok.*']);
    const gone = await createEndpoint('/gone', ['gone.*']);
    // Set at start: both are listed as active before anything is delivered.
    await expect.poll(() => listed('active'), { timeout: 20_000 }).toEqual([healthy, gone].sort());

    for (const type of ['ok.ping', 'gone.ping']) {
      const res = await t.call('POST', '/v1/events', { type, payload: { n: 1 } });
      expect(res.status, await res.clone().text()).toBeLessThan(300);
    }
    await expect
      .poll(
        async () =>
          ((await (await t.call('GET', `/v1/endpoints/${gone}`)).json()) as { health: { status: string } })
            .health.status,
        {
          timeout: 30_000,
        },
      )
      .toBe('disabled');
    expect(receiver.requests.filter((r) => r.path === '/ok')).toHaveLength(1);

    await expect.poll(() => listed('disabled'), { timeout: 20_000 }).toEqual([gone]);
    await expect.poll(() => listed('active'), { timeout: 20_000 }).toEqual([healthy]);
  });

  it('14.14 R-SMENGO-PAUSE: a paused endpoint is listed as paused, and as active again after resume', async () => {
    const id = await createEndpoint('/ok', ['pause.*']);
    expect((await t.call('POST', `/v1/endpoints/${id}/pause`)).status).toBe(200);
    await expect.poll(() => listed('paused'), { timeout: 20_000 }).toEqual([id]);
    expect((await t.call('POST', `/v1/endpoints/${id}/resume`)).status).toBe(200);
    await expect.poll(async () => (await listed('active')).includes(id), { timeout: 20_000 }).toBe(true);
    expect(await listed('paused')).toEqual([]);
  });

  it('14.14 an endpoint started without the attribute (by an older build) is indexed at its first status change', async () => {
    const endpointId = `ep_1414_old_${Date.now()}`;
    // The start an older Herald made: tenant, endpoint and preset only.
    const handle = await w.client.workflow.start(ENDPOINT_WORKFLOW, {
      workflowId: endpointId,
      taskQueue: w.config.HERALD_TASK_QUEUE,
      args: [
        {
          endpointId,
          tenantId: t.tenantId,
          config: { url: `${base}/ok`, preset: 'standard', eventTypes: ['old.*'] },
          secrets: [{ secret: generateSecret(), createdAt: Date.now() }],
          createdAt: Date.now(),
        },
      ],
      typedSearchAttributes: [
        { key: SA_TENANT, value: t.tenantId },
        { key: SA_ENDPOINT, value: endpointId },
        { key: SA_PRESET, value: 'standard' },
      ],
    });
    await handle.executeUpdate(pauseEndpointUpdate);
    await expect.poll(() => listed('paused'), { timeout: 20_000 }).toEqual([endpointId]);
  });
});

describe('14.14 npm start on a data folder an older Herald made', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'herald-1414-'));
  const receiver = new Receiver();
  let herald: HeraldProcess | undefined;

  afterAll(async () => {
    await herald?.interrupt().catch(() => undefined);
    await receiver.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('14.14 the embedded server gets HeraldEndpointStatus registered, and endpoints are found by it', async () => {
    const [apiPort, temporalPort, uiPort] = [await freePort(), await freePort(), await freePort()];
    // The SQLite file as the previous build left it: the dev server registered only the six
    // attributes on its command line then, and registers nothing on an existing database.
    const old = spawn(
      inject('temporalCliPath'),
      [
        'server',
        'start-dev',
        '--headless',
        '--ip',
        '127.0.0.1',
        '--port',
        String(temporalPort),
        '--db-filename',
        join(dataDir, 'temporal.sqlite'),
        '--log-level',
        'error',
        ...[
          'HeraldTenant',
          'HeraldEndpoint',
          'HeraldEventType',
          'HeraldEventId',
          'HeraldStatus',
          'HeraldPreset',
        ].flatMap((n) => ['--search-attribute', `${n}=Keyword`]),
      ],
      { stdio: 'ignore' },
    );
    const oldExit = new Promise((r) => old.once('exit', r));
    const until = Date.now() + 60_000;
    for (;;) {
      const up = await Connection.connect({ address: `127.0.0.1:${temporalPort}`, connectTimeout: 1_000 })
        .then(async (c) => {
          await c.workflowService.listWorkflowExecutions({ namespace: 'default', pageSize: 1 });
          await c.close();
          return true;
        })
        .catch(() => false);
      if (up) break;
      if (Date.now() > until) throw new Error('old-style dev server did not come up');
      await delay(250);
    }
    old.kill('SIGTERM');
    await oldExit;

    const apiUrl = `http://127.0.0.1:${apiPort}`;
    herald = new HeraldProcess({
      HERALD_DATA_DIR: dataDir,
      HERALD_API_PORT: String(apiPort),
      HERALD_TEMPORAL_PORT: String(temporalPort),
      HERALD_TEMPORAL_UI_PORT: String(uiPort),
      HERALD_TASK_QUEUE: 'herald',
      HERALD_OPERATOR_KEY: TEST_OPERATOR_KEY,
    });
    const base = await receiver.start();
    await herald.start(apiUrl);
    const tenant = await newTenant(httpApp(apiUrl), '14.14 upgrade');
    const res = await tenant.call('POST', '/v1/endpoints', { url: `${base}/ok`, preset: 'standard' });
    expect(res.status, await res.clone().text()).toBe(201);
    const { endpoint } = (await res.json()) as { endpoint: { endpointId: string } };
    expect((await tenant.call('POST', `/v1/endpoints/${endpoint.endpointId}/pause`)).status).toBe(200);

    const connection = await Connection.connect({ address: `127.0.0.1:${temporalPort}` });
    try {
      const query = `HeraldEndpoint = '${endpoint.endpointId}' AND HeraldEndpointStatus = 'paused'`;
      await expect
        .poll(
          async () =>
            (await connection.workflowService.listWorkflowExecutions({ namespace: 'default', query }))
              .executions.length,
          { timeout: 20_000 },
        )
        .toBe(1);
    } finally {
      await connection.close();
    }
  });
});
