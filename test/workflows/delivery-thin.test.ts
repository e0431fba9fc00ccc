import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities } from '../../src/activities/index.js';
import { PinnedDispatchers } from '../../src/activities/pinned-dispatcher.js';
import { parseCidrList } from '../../src/policy/address.js';
import { resolvePolicy } from '../../src/policy/policy.js';
import type { DeliveryInput, DeliveryState } from '../../src/shared/delivery-types.js';
import { DELIVERY_WORKFLOW } from '../../src/shared/names.js';
import { generateSecret } from '../../src/signing/standard-webhooks.js';
import { Receiver } from '../helpers/receiver.js';
import { timeSkippingEnv, workflowBundle } from '../helpers/temporal.js';

describe('delivery workflow on the time-skipping server (foundation)', () => {
  let env: TestWorkflowEnvironment;
  const receiver = new Receiver();
  let base: string;
  const dispatchers = new PinnedDispatchers();

  beforeAll(async () => {
    [env, base] = await Promise.all([timeSkippingEnv(), receiver.start()]);
  });
  afterAll(async () => {
    await receiver.stop();
    await dispatchers.close();
    await env?.teardown();
  });

  it('R-SIGN R-JITTER: retries a 500 after the standard 5 s step and delivers a verifiable request', async () => {
    receiver.respondWith((_r, i, res) => res.writeHead(i === 0 ? 500 : 204).end());
    const secret = generateSecret();
    const taskQueue = 'ts-thin';
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: workflowBundle(),
      activities: createActivities({
        dispatchers,
        allowAddresses: parseCidrList(['127.0.0.1/32']),
        allowHttpHosts: ['127.0.0.1'],
        now: () => new Date(),
      }),
    });
    const createdAt = new Date(await env.currentTimeMs()).toISOString();
    const input: DeliveryInput = {
      deliveryId: 'dlv_thin_1',
      tenantId: 't1',
      endpointId: 'ep1',
      event: { id: 'msg_thin_1', type: 'order.paid', occurredAt: createdAt, body: '{"type":"order.paid","data":{"n":1}}' },
      target: { url: `${base}/hook`, secrets: [secret] },
      policy: resolvePolicy('standard'),
      createdAt,
    };
    const state: DeliveryState = await worker.runUntil(
      env.client.workflow.execute(DELIVERY_WORKFLOW, { workflowId: input.deliveryId, taskQueue, args: [input] }),
    );

    expect(state.status).toBe('succeeded');
    expect(state.attempts.map((a) => a.httpStatus)).toEqual([500, 204]);
    expect(state.attempts[0]?.code).toBe('http_500');
    expect(receiver.requests).toHaveLength(2);
    // The second attempt waited the first step, 5 s x [0.9, 1.1], on the skipped clock.
    const gap = Date.parse(state.attempts[1]!.startedAt) - Date.parse(state.attempts[0]!.finishedAt);
    expect(gap).toBeGreaterThanOrEqual(4500 - 50);
    for (const r of receiver.requests) {
      expect(r.body).toBe(input.event.body);
      expect(r.headers['webhook-id']).toBe('msg_thin_1');
      expect(() => new Webhook(secret).verify(r.body, r.headers as Record<string, string>)).not.toThrow();
      expect(r.headers['idempotency-key']).toBe('dlv_thin_1');
    }
    expect(receiver.requests.map((r) => r.headers['webhook-delivery-id'])).toEqual(['dlv_thin_1:1', 'dlv_thin_1:2']);
  });
});
