import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { deliveryStateQuery } from '../../src/shared/messages.js';
import { generateSecret } from '../../src/signing/standard-webhooks.js';
import { startDevWorker } from '../helpers/dev-worker.js';
import { newTenant } from '../helpers/api.js';
import { Receiver } from '../helpers/receiver.js';

describe('history export (R-SIGN, §4 operators)', () => {
  let w: Awaited<ReturnType<typeof startDevWorker>>;
  const receiver = new Receiver();
  let base: string;
  beforeAll(async () => {
    [w, base] = await Promise.all([startDevWorker(), receiver.start()]);
  });
  afterAll(async () => {
    await w?.stop();
    await receiver.stop();
  });

  it('`temporal workflow show --output json` holds no signing secret and no event body in plaintext', async () => {
    const secret = generateSecret();
    const marker = `card-${Date.now()}-4242`;
    const tenant = await newTenant(createApp({ client: w.client, config: w.config }));
    const res = await tenant.call('POST', '/v1/events', {
      type: 'secret.test',
      payload: { marker },
      targets: [{ url: `${base}/s`, secrets: [secret] }],
    });
    const { deliveries } = (await res.json()) as { deliveries: Array<{ id: string }> };
    const handle = w.client.workflow.getHandle(deliveries[0]!.id);
    await expect.poll(async () => (await handle.query(deliveryStateQuery)).status, { timeout: 20_000 }).toBe('succeeded');
    // The receiver got the plaintext; Temporal's copy must not have it.
    expect(receiver.requests[0]!.body).toContain(marker);

    const history = execFileSync(
      inject('temporalCliPath'),
      ['workflow', 'show', '--workflow-id', deliveries[0]!.id, '--address', inject('temporalAddress'), '--output', 'json'],
      { encoding: 'utf8' },
    );
    expect(history).toContain('workflowExecutionStartedEventAttributes');
    // Payload metadata is base64 in the export: this is `binary/encrypted`.
    expect(history).toContain(Buffer.from('binary/encrypted').toString('base64'));
    for (const needle of [secret, secret.slice('whsec_'.length), marker, tenant.apiKey]) {
      expect(history).not.toContain(needle);
      expect(history).not.toContain(Buffer.from(needle).toString('base64'));
    }
  });
});
