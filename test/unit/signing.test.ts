import { createHmac } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import {
  decodeSecret,
  generateSecret,
  secretProblem,
  sign,
  signatureHeader,
  standardWebhookHeaders,
} from '../../src/signing/standard-webhooks.js';

// The vector of the spec repo's reference library
// (standard-webhooks/standard-webhooks, libraries/javascript/src/webhook.test.ts,
// "sign function works"); also reproduced by the installed `standardwebhooks` package below.
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  msgId: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

const nowSeconds = (): number => Math.floor(Date.now() / 1000);

describe('standard webhooks signer', () => {
  it('R-SIGN: reproduces the Standard Webhooks reference test vector', () => {
    expect(sign(VECTOR.secret, VECTOR.msgId, VECTOR.timestamp, VECTOR.body)).toBe(VECTOR.signature);
    // The vector is checked against the independent implementation too, so a typo in
    // the constant above cannot make both sides agree on a wrong value.
    const reference = new Webhook(VECTOR.secret).sign(
      VECTOR.msgId,
      new Date(VECTOR.timestamp * 1000),
      VECTOR.body,
    );
    expect(reference).toBe(VECTOR.signature);
  });

  it('R-SIGN: keys the HMAC with the decoded secret bytes, not the whsec_ string', () => {
    const key = decodeSecret(VECTOR.secret);
    expect(key).toEqual(Buffer.from('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'base64'));
    const wrong = createHmac('sha256', VECTOR.secret)
      .update(`${VECTOR.msgId}.${VECTOR.timestamp}.${VECTOR.body}`)
      .digest('base64');
    expect(sign(VECTOR.secret, VECTOR.msgId, VECTOR.timestamp, VECTOR.body)).not.toBe(`v1,${wrong}`);
  });

  it('R-SIGN: generated secrets are whsec_ + base64 of 32 random bytes, and distinct', () => {
    const a = generateSecret();
    const b = generateSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
    expect(decodeSecret(a)).toHaveLength(32);
    expect(a).not.toBe(b);
    // The reference library accepts what we generate.
    expect(() => new Webhook(a)).not.toThrow();
  });

  it('R-SIGN: decodeSecret rejects malformed secrets with a clear error', () => {
    expect(() => decodeSecret('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')).toThrow(/whsec_<base64>/);
    expect(() => decodeSecret('whsec_')).toThrow(/base64/);
    expect(() => decodeSecret('whsec_MfKQ9r8G!KYqrTwjUPD8ILPZIo2LaLaSw')).toThrow(/base64/);
    expect(() => decodeSecret('whsec_MfKQ9r8G KYqrTwjUPD8ILPZIo2LaLaSw')).toThrow(/base64/);
    // URL-safe alphabet is a different key space; the spec uses standard base64.
    expect(() => decodeSecret('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2La-_Sw')).toThrow(/base64/);
    // Too short for the spec's 24-byte minimum, and too long for its 64-byte maximum.
    expect(() => decodeSecret(`whsec_${Buffer.alloc(16, 1).toString('base64')}`)).toThrow(/24-64 bytes/);
    expect(() => decodeSecret(`whsec_${Buffer.alloc(65, 1).toString('base64')}`)).toThrow(/24-64 bytes/);
    // Stray bits in the final character would silently be dropped by the decoder.
    expect(() =>
      decodeSecret(`whsec_${Buffer.alloc(32, 7).toString('base64').replace(/.=$/, 'B=')}`),
    ).toThrow(/canonical/);
  });

  it("R-SIGN: secretProblem is the decoder's verdict: undefined for a usable secret, else its reason", () => {
    expect(secretProblem(generateSecret())).toBeUndefined();
    expect(secretProblem(VECTOR.secret)).toBeUndefined();
    expect(secretProblem('whsec_AAAA')).toMatch(/24-64 bytes, got 3/);
    expect(secretProblem('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')).toMatch(/whsec_<base64>/);
    expect(secretProblem(42)).toMatch(/whsec_<base64>/);
  });

  it('R-SIGN: sign refuses a non-integer timestamp or an empty id', () => {
    expect(() => sign(VECTOR.secret, VECTOR.msgId, 1614265330.5, VECTOR.body)).toThrow(/unix seconds/);
    expect(() => sign(VECTOR.secret, VECTOR.msgId, Number.NaN, VECTOR.body)).toThrow(/unix seconds/);
    expect(() => sign(VECTOR.secret, '', VECTOR.timestamp, VECTOR.body)).toThrow(/webhook-id/);
  });

  it('R-SIGN: headers built now verify with the standardwebhooks package', () => {
    const secret = generateSecret();
    const body = JSON.stringify({ type: 'invoice.paid', data: { id: 'inv_1', amount: 4200, note: 'zł ✓' } });
    const headers = standardWebhookHeaders({
      secrets: [secret],
      msgId: 'evt_01HZX',
      timestampSeconds: nowSeconds(),
      body,
    });
    expect(Object.keys(headers).sort()).toEqual(['webhook-id', 'webhook-signature', 'webhook-timestamp']);
    expect(headers['webhook-id']).toBe('evt_01HZX');
    expect(headers['webhook-timestamp']).toMatch(/^\d+$/);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('R-SIGN: during rotation both signatures are sent, space-separated, and either secret verifies', () => {
    const oldSecret = generateSecret();
    const newSecret = generateSecret();
    const body = '{"rotation":true}';
    const ts = nowSeconds();
    const headers = standardWebhookHeaders({
      secrets: [oldSecret, newSecret],
      msgId: 'msg_rot',
      timestampSeconds: ts,
      body,
    });

    const parts = headers['webhook-signature'].split(' ');
    expect(parts).toEqual([sign(oldSecret, 'msg_rot', ts, body), sign(newSecret, 'msg_rot', ts, body)]);
    for (const part of parts) expect(part).toMatch(/^v1,[A-Za-z0-9+/]+={0,2}$/);

    // A receiver holding only one of the two secrets: one signature matches, the other does not.
    expect(new Webhook(oldSecret).verify(body, headers)).toEqual({ rotation: true });
    expect(new Webhook(newSecret).verify(body, headers)).toEqual({ rotation: true });
    // A receiver holding neither secret finds no match.
    expect(() => new Webhook(generateSecret()).verify(body, headers)).toThrow(WebhookVerificationError);
  });

  it('R-SIGN: a duplicated secret yields one signature', () => {
    const s = generateSecret();
    expect(signatureHeader([s, s], 'msg_dup', 1, '{}').split(' ')).toHaveLength(1);
    expect(() => signatureHeader([], 'msg_none', 1, '{}')).toThrow(/at least one/);
  });

  it('R-SIGN: a tampered body fails verification', () => {
    const secret = generateSecret();
    const body = '{"amount":100}';
    const headers = standardWebhookHeaders({
      secrets: [secret],
      msgId: 'msg_t',
      timestampSeconds: nowSeconds(),
      body,
    });
    expect(() => new Webhook(secret).verify('{"amount":999}', headers)).toThrow(WebhookVerificationError);
    // Whitespace is part of the signed bytes: re-serialising the body would break it.
    expect(() => new Webhook(secret).verify('{"amount": 100}', headers)).toThrow(WebhookVerificationError);
    expect(() => new Webhook(secret).verify(body, { ...headers, 'webhook-id': 'msg_other' })).toThrow(
      WebhookVerificationError,
    );
  });

  it('R-SIGN: a stale timestamp fails the 5-minute tolerance; re-signing at send time passes', () => {
    const secret = generateSecret();
    const body = '{"retry":3}';
    const msgId = 'msg_stale';
    const stale = standardWebhookHeaders({
      secrets: [secret],
      msgId,
      timestampSeconds: nowSeconds() - 5 * 60 - 10,
      body,
    });
    expect(() => new Webhook(secret).verify(body, stale)).toThrow(/too old/);
    const future = standardWebhookHeaders({
      secrets: [secret],
      msgId,
      timestampSeconds: nowSeconds() + 5 * 60 + 10,
      body,
    });
    expect(() => new Webhook(secret).verify(body, future)).toThrow(/too new/);

    // A retry keeps webhook-id and body but carries a fresh timestamp and signature.
    const fresh = standardWebhookHeaders({ secrets: [secret], msgId, timestampSeconds: nowSeconds(), body });
    expect(fresh['webhook-id']).toBe(stale['webhook-id']);
    expect(fresh['webhook-signature']).not.toBe(stale['webhook-signature']);
    expect(new Webhook(secret).verify(body, fresh)).toEqual({ retry: 3 });
  });
});
