import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActivities } from '../../src/activities/index.js';
import { PinnedDispatchers } from '../../src/activities/pinned-dispatcher.js';
import { parseCidrList } from '../../src/policy/address.js';
import { PRESET_NAMES, resolvePolicy } from '../../src/policy/policy.js';
import type { DeliveryInput, DeliveryState } from '../../src/shared/delivery-types.js';
import { DELIVERY_WORKFLOW } from '../../src/shared/names.js';
import { generateSecret } from '../../src/signing/standard-webhooks.js';
import { TransformSandbox } from '../../src/transform/sandbox.js';
import { Receiver } from '../helpers/receiver.js';
import { timeSkippingEnv, workflowBundle } from '../helpers/temporal.js';

describe('R-RH-TRANSFORM: a failing transformation under every preset (time-skipping server)', () => {
  let env: TestWorkflowEnvironment;
  let worker: Worker;
  let running: Promise<void>;
  const receiver = new Receiver();
  const dispatchers = new PinnedDispatchers();
  const sandbox = new TransformSandbox({ processes: 1 });
  const taskQueue = `ts-transform-${Math.random().toString(36).slice(2, 8)}`;
  let base: string;

  beforeAll(async () => {
    [env, base] = await Promise.all([timeSkippingEnv(), receiver.start()]);
    worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: workflowBundle(),
      activities: createActivities({
        dispatchers,
        allowAddresses: parseCidrList(['127.0.0.1/32']),
        allowHttpHosts: ['127.0.0.1'],
        now: () => new Date(),
        transformer: sandbox,
      }),
    });
    running = worker.run();
  });
  afterAll(async () => {
    worker?.shutdown();
    await running;
    await Promise.all([receiver.stop(), dispatchers.close(), sandbox.close()]);
    await env?.teardown();
  });

  it.each(PRESET_NAMES)(
    '%s: every attempt is spent as transformation_failed on the preset schedule, then exhausted; nothing is sent',
    async (preset) => {
      const policy = resolvePolicy(preset);
      const createdAt = new Date(await env.currentTimeMs()).toISOString();
      const input: DeliveryInput = {
        deliveryId: `dlv_tf_${preset}`,
        tenantId: 't1',
        endpointId: 'ep1',
        event: {
          id: `msg_tf_${preset}`,
          type: 'order.paid',
          occurredAt: createdAt,
          body: JSON.stringify({
            type: 'order.paid',
            timestamp: createdAt,
            data: { card: '4242424242424242' },
          }),
        },
        target: {
          url: `${base}/${preset}`,
          secrets: [generateSecret()],
          transformation: '$error("no mapping for " & type)',
        },
        policy,
        createdAt,
      };
      const state: DeliveryState = await env.client.workflow.execute(DELIVERY_WORKFLOW, {
        workflowId: input.deliveryId,
        taskQueue,
        args: [input],
      });

      expect(state.status).toBe('exhausted');
      expect(state.lastCode).toBe('transformation_failed');
      // Every row is a spent attempt: no deferral, no refusal ends it early.
      expect(state.attempts.map((a) => a.kind)).toEqual(Array(policy.maxAttempts).fill('attempt'));
      for (const a of state.attempts)
        expect(a).toMatchObject({
          code: 'transformation_failed',
          detail: expect.stringContaining('no mapping for order.paid'),
        });
      // The preset's own schedule, within its jitter.
      for (let i = 1; i < state.attempts.length; i++) {
        const delayMs =
          1000 * policy.retryDelaysSeconds[Math.min(i - 1, policy.retryDelaysSeconds.length - 1)]!;
        const jittered = i + 1 >= policy.jitter.fromAttempt;
        const waited =
          Date.parse(state.attempts[i]!.startedAt) - Date.parse(state.attempts[i - 1]!.finishedAt);
        expect(waited).toBeGreaterThanOrEqual(delayMs * (jittered ? policy.jitter.min : 1) - 1000);
        expect(waited).toBeLessThanOrEqual(delayMs * (jittered ? policy.jitter.max : 1) + 1000);
      }
      expect(receiver.requests.filter((r) => r.path === `/${preset}`)).toHaveLength(0);
    },
  );
});
