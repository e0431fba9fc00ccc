import { spawn } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { startDelivery } from '../../src/deliveries/start-delivery.js';
import { resolvePolicy } from '../../src/policy/policy.js';
import { deliveryStateQuery } from '../../src/shared/messages.js';
import { generateSecret } from '../../src/signing/standard-webhooks.js';
import { startDevWorker } from '../helpers/dev-worker.js';
import { Receiver } from '../helpers/receiver.js';
import { TEST_CODEC_KEY, devServerClients } from '../helpers/temporal.js';

describe('a worker killed mid-attempt (R-CRASH)', () => {
  const receiver = new Receiver();
  let second: Awaited<ReturnType<typeof startDevWorker>> | undefined;

  afterAll(async () => {
    await second?.stop();
    await receiver.stop();
  });

  it('R-CRASH: the lost attempt is repeated after the lease, logged `lease_expired`, and not counted twice', async () => {
    const taskQueue = `crash-${Date.now()}`;
    const base = await receiver.start();

    // The first worker is a real process running src/worker.ts, so it can die for real.
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/worker.ts'], {
      env: {
        ...process.env,
        TEMPORAL_ADDRESS: inject('temporalAddress'),
        HERALD_TASK_QUEUE: taskQueue,
        HERALD_ALLOW_ADDRESSES: '127.0.0.1/32',
        HERALD_ALLOW_HTTP_HOSTS: '127.0.0.1',
        HERALD_CODEC_KEYS: TEST_CODEC_KEY,
        HERALD_METRICS_PORT: '0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise((r) => child.once('exit', r));
    // The SDK's state change, as a field of Herald's JSON log line (issue 20).
    for (let i = 0; i < 240 && !out.includes('"state":"RUNNING"'); i++) await delay(250);
    expect(out).toContain('"state":"RUNNING"');

    // First request: the receiver holds it open and the worker is killed mid-attempt.
    receiver.respondWith((_req, i, res) => {
      if (i === 0) child.kill('SIGKILL');
      else res.writeHead(200).end('ok');
    });

    const now = new Date().toISOString();
    const deliveryId = `dlv_crash_${Date.now()}`;
    // Only the doomed worker is polling when the delivery starts.
    const { client, close } = await devServerClients();
    try {
      await startDelivery(client, taskQueue, {
        deliveryId,
        tenantId: 't_crash',
        endpointId: 'ep_crash',
        event: { id: `msg_${deliveryId}`, type: 'crash.test', occurredAt: now, body: '{"crash":true}' },
        target: { url: `${base}/crash`, secrets: [generateSecret()] },
        policy: resolvePolicy('standard', { timeoutSeconds: 2 }),
        createdAt: now,
      });
      await receiver.waitFor(1, 60_000);
      await exited;

      // A fresh worker picks the delivery up once the lease (timeout + 5 s) runs out.
      second = await startDevWorker({ HERALD_TASK_QUEUE: taskQueue });
      await receiver.waitFor(2, 60_000);
      const handle = client.workflow.getHandle(deliveryId);
      await expect
        .poll(async () => (await handle.query(deliveryStateQuery)).status, { timeout: 20_000 })
        .toBe('succeeded');
      const state = await handle.query(deliveryStateQuery);
      expect(state.attempts.map((a) => a.kind)).toEqual(['lease_expired', 'attempt']);
      expect(state.attemptsInRound).toBe(1);
      // The receiver saw the same attempt twice: same attempt number and idempotency key.
      expect(receiver.requests.map((r) => r.headers['webhook-delivery-id'])).toEqual([
        `${deliveryId}:1`,
        `${deliveryId}:1`,
      ]);
      expect(new Set(receiver.requests.map((r) => r.headers['idempotency-key']))).toEqual(new Set([deliveryId]));
      const leaseRow = state.attempts[0]!;
      expect(Date.parse(leaseRow.finishedAt) - Date.parse(leaseRow.startedAt)).toBeGreaterThanOrEqual(6_500);
    } finally {
      await close();
    }
  });
});
