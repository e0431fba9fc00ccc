import { Client, Connection } from '@temporalio/client';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { deliveryStateQuery } from '../../src/shared/messages.js';
import { dataConverterFor } from '../../src/temporal/data-converter.js';
import { generateSecret } from '../../src/signing/standard-webhooks.js';
import { TEST_OPERATOR_KEY, httpApp, newTenant } from '../helpers/api.js';
import { HeraldProcess } from '../helpers/herald-process.js';
import { freePort, portOpen } from '../helpers/ports.js';
import { Receiver } from '../helpers/receiver.js';


describe('npm start: the embedded default (foundation)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'herald-data-'));
  const receiver = new Receiver();
  let herald: HeraldProcess | undefined;

  afterAll(async () => {
    await herald?.interrupt().catch(() => undefined);
    await receiver.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('R-CRASH: a delivery waiting for its retry survives killing the whole service, and Ctrl-C stops everything', async () => {
    const [apiPort, temporalPort, uiPort] = [await freePort(), await freePort(), await freePort()];
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
    receiver.respondWith((_r, i, res) => res.writeHead(i === 0 ? 503 : 200).end());

    await herald.start(apiUrl);
    const secret = generateSecret();
    const tenant = await newTenant(httpApp(apiUrl));
    const res = await tenant.call('POST', '/v1/events', {
      type: 'restart.test',
      payload: { n: 1 },
      targets: [{ url: `${base}/r`, secrets: [secret] }],
    });
    expect(res.status).toBe(202);
    const { deliveries } = (await res.json()) as { deliveries: Array<{ id: string }> };
    await receiver.waitFor(1);

    // Wait until the failure is recorded and the delivery sleeps toward attempt 2 (~5 s),
    // then pull the plug on everything: server, worker and API at once.
    // npm start made its own codec key beside the SQLite file; read payloads with it.
    const dataConverter = dataConverterFor(
      loadConfig({ HERALD_CODEC_KEYS: readFileSync(join(dataDir, 'codec.key'), 'utf8').trim() }),
    );
    const connection1 = await Connection.connect({ address: `127.0.0.1:${temporalPort}` });
    const handle1 = new Client({ connection: connection1, dataConverter }).workflow.getHandle(deliveries[0]!.id);
    await expect
      .poll(async () => (await handle1.query(deliveryStateQuery)).nextAttemptAt, { timeout: 10_000, interval: 100 })
      .toBeTruthy();
    await connection1.close();
    await herald.kill();
    expect(await portOpen(temporalPort)).toBe(false);

    await herald.start(apiUrl);
    await receiver.waitFor(2, 60_000);
    expect(receiver.requests[1]!.headers['webhook-id']).toBe(receiver.requests[0]!.headers['webhook-id']);

    const connection = await Connection.connect({ address: `127.0.0.1:${temporalPort}` });
    try {
      const handle = new Client({ connection, dataConverter }).workflow.getHandle(deliveries[0]!.id);
      await expect.poll(async () => (await handle.query(deliveryStateQuery)).status, { timeout: 20_000 }).toBe('succeeded');
      const state = await handle.query(deliveryStateQuery);
      expect(state.status).toBe('succeeded');
      expect(state.attempts.filter((a) => a.kind === 'attempt').map((a) => a.httpStatus)).toEqual([503, 200]);
    } finally {
      await connection.close();
    }

    // R-LOG, R-DT-REPLAY (issue 16): deliveries close at their round's end, so the embedded
    // namespace keeps closed histories 90 days (Dong Tien's bodies and replay window).
    const c2 = await Connection.connect({ address: `127.0.0.1:${temporalPort}` });
    const ns = await c2.workflowService.describeNamespace({ namespace: 'default' });
    expect(Number(ns.config?.workflowExecutionRetentionTtl?.seconds)).toBe(90 * 24 * 3600);
    await c2.close();

    const exitCode = await herald.interrupt();
    expect(exitCode, herald.output).toBe(0);
    expect(await portOpen(temporalPort)).toBe(false);
    expect(await portOpen(apiPort)).toBe(false);
  });
});
