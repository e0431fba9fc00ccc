import { defaultPayloadConverter } from '@temporalio/common';
import proto from '@temporalio/proto';
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp } from '../../../src/api/app.js';
import type { Config } from '../../../src/config.js';
import { generateSecret } from '../../../src/signing/standard-webhooks.js';
import { AesGcmCodec } from '../../../src/temporal/codec.js';
import { createHeraldWorker } from '../../../src/worker.js';
import { newTenant } from '../../helpers/api.js';
import { Receiver } from '../../helpers/receiver.js';
import { TEST_CODEC_KEY, devServerClients, testConfig, workflowBundle } from '../../helpers/temporal.js';

// Issue 13.7 (first bullet; §4 Operators: no secret in plaintext in workflow history).
// An activity failure's message and stack trace are written to history by the worker's
// failure converter; with the codec on they must be encrypted like any payload.

const EventType = proto.temporal.api.enums.v1.EventType;

describe('13.7a failure messages and stack traces are encrypted in history (§4 operators)', () => {
  let t: Awaited<ReturnType<typeof devServerClients>>;
  let config: Config;
  let stopWorker: () => Promise<void>;
  const receiver = new Receiver();
  let base: string;
  // What a failing send could carry in its message: here, a marker the test can look for.
  const marker = `failure-marker-${Date.now()}-sk_live_4242`;

  beforeAll(async () => {
    [t, base] = await Promise.all([devServerClients(), receiver.start()]);
    config = testConfig();
    // Herald's own sendAttempt activity fails: its gate (a real dependency the activity
    // consults before sending) throws, as any bug inside the worker would.
    const { worker, close } = await createHeraldWorker({
      connection: t.nativeConnection,
      config,
      client: t.client,
      workflowBundle: workflowBundle(),
      deps: {
        gate: async () => {
          throw new Error(`send failed inside Herald: ${marker}`);
        },
      },
    });
    const running = worker.run();
    stopWorker = async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await close();
    };
  });
  afterAll(async () => {
    await stopWorker?.();
    await t?.close();
    await receiver.stop();
  });

  it("13.7a: a failed activity's message is not readable in the raw history, and is with the codec", async () => {
    const tenant = await newTenant(createApp({ client: t.client, config }));
    const res = await tenant.call('POST', '/v1/events', {
      type: 'failure.test',
      payload: { n: 1 },
      targets: [{ url: `${base}/f`, secrets: [generateSecret()] }],
    });
    expect(res.status).toBe(202);
    const { deliveries } = (await res.json()) as { deliveries: Array<{ id: string }> };
    const handle = t.client.workflow.getHandle(deliveries[0]!.id);

    // fetchHistory returns history as stored: payloads are not decoded.
    const failedEvent = async () =>
      (await handle.fetchHistory()).events?.find(
        (e) => e.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED,
      );
    await expect.poll(async () => (await failedEvent()) !== undefined, { timeout: 30_000 }).toBe(true);
    const failure = (await failedEvent())!.activityTaskFailedEventAttributes!.failure!;
    await handle.terminate('test over');

    // In clear: neither the message nor the stack trace.
    expect(failure.message).not.toContain(marker);
    expect(failure.stackTrace ?? '').toBe('');
    const exported = execFileSync(
      inject('temporalCliPath'),
      [
        'workflow',
        'show',
        '--workflow-id',
        deliveries[0]!.id,
        '--address',
        inject('temporalAddress'),
        '--output',
        'json',
      ],
      { encoding: 'utf8' },
    );
    expect(exported).toContain('activityTaskFailedEventAttributes');
    expect(exported).not.toContain(marker);
    expect(exported).not.toContain('send failed inside Herald');

    // The message travels in an encrypted payload, which the codec opens.
    const encoded = failure.encodedAttributes!;
    expect(Buffer.from(encoded.metadata!.encoding!).toString()).toBe('binary/encrypted');
    const [decoded] = await new AesGcmCodec([TEST_CODEC_KEY]).decode([encoded]);
    const attrs = defaultPayloadConverter.fromPayload<{ message: string; stack_trace: string }>(decoded!);
    expect(attrs.message).toContain(marker);
    expect(attrs.stack_trace).toContain('Error');
  });
});
