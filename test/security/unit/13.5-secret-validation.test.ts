import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpSender } from '../../../src/activities/http-sender.js';
import { PinnedDispatchers } from '../../../src/activities/pinned-dispatcher.js';
import { publishSchema } from '../../../src/api/schemas.js';
import { verificationSchema } from '../../../src/api/routes/sources.routes.js';
import { parseCidrList } from '../../../src/policy/address.js';
import type { SendRequest } from '../../../src/shared/delivery-types.js';
import { generateSecret, sign } from '../../../src/signing/standard-webhooks.js';
import { Receiver } from '../../helpers/receiver.js';

// Secrets a tenant could paste that the signer refuses: too short (the issue's own
// example), too long, no prefix, outside the base64 alphabet, non-canonical base64.
const UNSIGNABLE = [
  'whsec_AAAA',
  `whsec_${Buffer.alloc(16, 1).toString('base64')}`,
  `whsec_${Buffer.alloc(65, 1).toString('base64')}`,
  Buffer.alloc(32, 1).toString('base64'),
  `whsec_${Buffer.alloc(32, 1).toString('base64').slice(0, -4)}!!!!`,
  `whsec_${Buffer.alloc(32, 7).toString('base64').replace(/.=$/, 'B=')}`,
];
const SIGNABLE = [
  generateSecret(),
  `whsec_${Buffer.alloc(24, 3).toString('base64')}`,
  `whsec_${Buffer.alloc(64, 9).toString('base64')}`,
];

const canSign = (secret: string) => {
  try {
    sign(secret, 'msg_1', 1_700_000_000, '{}');
    return true;
  } catch {
    return false;
  }
};
const publish = (secret: string) =>
  publishSchema.safeParse({
    type: 'x',
    payload: {},
    targets: [{ url: 'https://example.com/x', secrets: [secret] }],
  });

describe('13.5 R-SIGN: the API accepts exactly the secrets the signer can sign with', () => {
  it('13.5 R-SIGN: publish refuses every ad-hoc target secret the signer refuses (invalid_secret on the field) and accepts the rest', () => {
    for (const secret of UNSIGNABLE) {
      expect(canSign(secret), secret).toBe(false);
      const r = publish(secret);
      expect(r.success, secret).toBe(false);
      const issue = r.error!.issues[0]!;
      expect(issue.path).toEqual(['targets', 0, 'secrets', 0]);
      expect(issue).toMatchObject({ code: 'custom', params: { code: 'invalid_secret' } });
      // The reason names the rule broken, never the secret itself.
      expect(issue.message).not.toContain(secret.slice('whsec_'.length) || secret);
    }
    // ...and still accepts every secret it can sign with.
    for (const secret of SIGNABLE) {
      expect(canSign(secret)).toBe(true);
      expect(publish(secret).success, secret).toBe(true);
    }
  });

  it('13.5 R-RH-INBOUND: a standard_webhooks source secret is checked the same way, with invalid_secret', () => {
    const r = verificationSchema.safeParse({ kind: 'standard_webhooks', secrets: ['whsec_AAAA'] });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]).toMatchObject({ path: ['secrets', 0], params: { code: 'invalid_secret' } });
    expect(
      verificationSchema.safeParse({ kind: 'standard_webhooks', secrets: [generateSecret()] }).success,
    ).toBe(true);
  });
});

describe('13.5 R-SIGN: a secret the signer refuses at send time fails the attempt, it never throws', () => {
  const receiver = new Receiver();
  const dispatchers = new PinnedDispatchers();
  let base = '';
  beforeAll(async () => {
    base = await receiver.start();
  });
  afterAll(async () => {
    await Promise.all([receiver.stop(), dispatchers.close()]);
  });

  const send = createHttpSender({
    dispatchers,
    allowAddresses: parseCidrList(['127.0.0.1/32']),
    allowHttpHosts: ['127.0.0.1'],
    now: () => new Date(),
  });
  const request = (path: string, secrets: string[]): SendRequest => ({
    deliveryId: `dl_${path.slice(1)}`,
    attempt: 1,
    event: { id: 'evt_1', type: 'x', occurredAt: '2026-01-01T00:00:00Z', body: '{}' },
    target: { url: `${base}${path}`, secrets },
    timeoutSeconds: 2,
    deliveryIdHeader: 'Webhook-Delivery-Id',
  });

  it('13.5 R-SIGN: whsec_AAAA (saved before the API checked it) is a not-sent invalid_secret attempt; nothing reaches the receiver', async () => {
    const r = await send(request('/bad-secret', ['whsec_AAAA']));
    expect(r).toMatchObject({ code: 'invalid_secret', notSent: true });
    expect(r.detail).toMatch(/24-64 bytes/);
    expect(r.detail).not.toContain('AAAA');
    expect(r.httpStatus).toBeUndefined();
    expect(receiver.requests.filter((q) => q.path === '/bad-secret')).toHaveLength(0);
    // Any other refusal of the signer is a not-sent attempt too, with its own code.
    const noId = await send({
      ...request('/no-id', [generateSecret()]),
      event: { ...request('/no-id', []).event, id: '' },
    });
    expect(noId).toMatchObject({ code: 'signing_failed', notSent: true });
    expect(receiver.requests.filter((q) => q.path === '/no-id')).toHaveLength(0);
    // The same sender with a good secret signs and sends.
    const ok = await send(request('/good-secret', [generateSecret()]));
    expect(ok).toMatchObject({ httpStatus: 200 });
    expect(receiver.requests.filter((q) => q.path === '/good-secret')).toHaveLength(1);
  });
});
