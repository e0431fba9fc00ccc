import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import {
  headerLookup,
  safeEqual,
  verifyInboundSignature,
  type VerificationScheme,
} from '../../../src/inbound/signature-verify.js';
import {
  forwardHeaderList,
  forwardableHeaders,
  storeBody,
  forwardBodyBytes,
} from '../../../src/inbound/forward-request.js';
import { generateSecret } from '../../../src/signing/standard-webhooks.js';

const NOW = 1_790_000_000;
const enc = (s: string) => new TextEncoder().encode(s);
const lookup = (h: Record<string, string>) => headerLookup(Object.entries(h));

describe('R-RH-INBOUND signature verification: Standard Webhooks', () => {
  const secret = generateSecret();
  const scheme: VerificationScheme = { kind: 'standard_webhooks', secrets: [secret] };
  const body = '{"type":"invoice.paid","amount":4200}';
  // Signed by the independent `standardwebhooks` package, as a real sender would.
  const signed = (b: string, ts = NOW, id = 'msg_1') => ({
    'webhook-id': id,
    'webhook-timestamp': String(ts),
    'webhook-signature': new Webhook(secret).sign(id, new Date(ts * 1000), b),
  });

  it('R-RH-INBOUND: a request signed by a Standard Webhooks library verifies', () => {
    expect(verifyInboundSignature(scheme, lookup(signed(body)), enc(body), NOW)).toEqual({ ok: true });
  });

  it('R-RH-INBOUND: one changed byte of the body fails with signature_mismatch', () => {
    const r = verifyInboundSignature(scheme, lookup(signed(body)), enc(body.replace('4200', '4201')), NOW);
    expect(r).toMatchObject({ ok: false, reason: 'signature_mismatch' });
  });

  it('R-RH-INBOUND: the signature covers the id and timestamp too', () => {
    const h = signed(body);
    expect(
      verifyInboundSignature(scheme, lookup({ ...h, 'webhook-id': 'msg_2' }), enc(body), NOW),
    ).toMatchObject({ ok: false, reason: 'signature_mismatch' });
    expect(
      verifyInboundSignature(scheme, lookup({ ...h, 'webhook-timestamp': String(NOW + 1) }), enc(body), NOW),
    ).toMatchObject({ ok: false, reason: 'signature_mismatch' });
  });

  it('R-RH-INBOUND: a wrong secret fails; either secret of a rotation passes', () => {
    const other: VerificationScheme = { kind: 'standard_webhooks', secrets: [generateSecret()] };
    expect(verifyInboundSignature(other, lookup(signed(body)), enc(body), NOW)).toMatchObject({ ok: false });
    const rotating: VerificationScheme = { kind: 'standard_webhooks', secrets: [generateSecret(), secret] };
    expect(verifyInboundSignature(rotating, lookup(signed(body)), enc(body), NOW)).toEqual({ ok: true });
  });

  it('R-RH-INBOUND: several signatures in the header: any v1 match passes, other versions are ignored', () => {
    const h = signed(body);
    const header = `v1a,AAAA v1,${Buffer.alloc(32).toString('base64')} ${h['webhook-signature']}`;
    expect(
      verifyInboundSignature(scheme, lookup({ ...h, 'webhook-signature': header }), enc(body), NOW),
    ).toEqual({
      ok: true,
    });
    const onlyOther = `v2,${h['webhook-signature'].slice(3)}`;
    expect(
      verifyInboundSignature(scheme, lookup({ ...h, 'webhook-signature': onlyOther }), enc(body), NOW),
    ).toMatchObject({ ok: false, reason: 'malformed_signature' });
  });

  it('R-RH-INBOUND: a timestamp more than 5 minutes away (either way) fails; within, passes', () => {
    const old = signed(body, NOW - 301);
    expect(verifyInboundSignature(scheme, lookup(old), enc(body), NOW)).toMatchObject({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
    expect(verifyInboundSignature(scheme, lookup(signed(body, NOW + 301)), enc(body), NOW)).toMatchObject({
      ok: false,
      reason: 'timestamp_out_of_tolerance',
    });
    expect(verifyInboundSignature(scheme, lookup(signed(body, NOW - 299)), enc(body), NOW)).toEqual({
      ok: true,
    });
    const lax: VerificationScheme = { kind: 'standard_webhooks', secrets: [secret], toleranceSeconds: 600 };
    expect(verifyInboundSignature(lax, lookup(old), enc(body), NOW)).toEqual({ ok: true });
  });

  it('R-RH-INBOUND: missing headers and a non-numeric timestamp are refused', () => {
    const h = signed(body);
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const) {
      const { [name]: _gone, ...rest } = h;
      expect(verifyInboundSignature(scheme, lookup(rest), enc(body), NOW)).toMatchObject({
        ok: false,
        reason: 'missing_header',
      });
    }
    expect(
      verifyInboundSignature(scheme, lookup({ ...h, 'webhook-timestamp': '17e8' }), enc(body), NOW),
    ).toMatchObject({ ok: false, reason: 'invalid_timestamp' });
  });

  it('R-RH-INBOUND: header names match case-insensitively', () => {
    const h = signed(body);
    const upper = Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toUpperCase(), v]));
    expect(verifyInboundSignature(scheme, lookup(upper), enc(body), NOW)).toEqual({ ok: true });
  });

  it('R-RH-INBOUND: the raw bytes are verified, not a re-encoded string (non-UTF-8 body)', () => {
    const bytes = Uint8Array.from([0xff, 0xfe, 0x00, 0x41, 0xc3]);
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const mac = createHmac('sha256', key).update(`msg_b.${NOW}.`).update(bytes).digest('base64');
    const h = { 'webhook-id': 'msg_b', 'webhook-timestamp': String(NOW), 'webhook-signature': `v1,${mac}` };
    expect(verifyInboundSignature(scheme, lookup(h), bytes, NOW)).toEqual({ ok: true });
    // The same bytes decoded to text and back are different bytes: that must not verify.
    const mangled = enc(Buffer.from(bytes).toString('utf8'));
    expect(verifyInboundSignature(scheme, lookup(h), mangled, NOW)).toMatchObject({ ok: false });
  });
});

describe('R-RH-INBOUND signature verification: HMAC of the body in a configurable header', () => {
  const secret = 'it-is-a-shared-secret-0123';
  const body = '{"action":"opened","number":7}';
  const mac = (alg: string, b: string | Uint8Array, s = secret) => createHmac(alg, s).update(b).digest();

  it('R-RH-INBOUND: GitHub style (X-Hub-Signature-256: sha256=<hex>) verifies; a changed body does not', () => {
    const scheme: VerificationScheme = {
      kind: 'hmac',
      header: 'X-Hub-Signature-256',
      algorithm: 'sha256',
      encoding: 'hex',
      prefix: 'sha256=',
      secrets: [secret],
    };
    const h = { 'x-hub-signature-256': `sha256=${mac('sha256', body).toString('hex')}` };
    expect(verifyInboundSignature(scheme, lookup(h), enc(body), NOW)).toEqual({ ok: true });
    expect(verifyInboundSignature(scheme, lookup(h), enc(`${body} `), NOW)).toMatchObject({
      ok: false,
      reason: 'signature_mismatch',
    });
    // Upper-case hex is the same bytes.
    const upper = { 'x-hub-signature-256': `sha256=${mac('sha256', body).toString('hex').toUpperCase()}` };
    expect(verifyInboundSignature(scheme, lookup(upper), enc(body), NOW)).toEqual({ ok: true });
    // Without the prefix the header is malformed.
    const bare = { 'x-hub-signature-256': mac('sha256', body).toString('hex') };
    expect(verifyInboundSignature(scheme, lookup(bare), enc(body), NOW)).toMatchObject({
      ok: false,
      reason: 'malformed_signature',
    });
  });

  it.each([
    ['sha1', 'hex'],
    ['sha256', 'base64'],
    ['sha512', 'base64url'],
    ['sha512', 'hex'],
  ] as const)(
    'R-RH-INBOUND: algorithm %s, encoding %s verifies, and the other algorithms do not',
    (algorithm, encoding) => {
      const scheme: VerificationScheme = {
        kind: 'hmac',
        header: 'X-Signature',
        algorithm,
        encoding,
        secrets: [secret],
      };
      const good = { 'x-signature': mac(algorithm, body).toString(encoding) };
      expect(verifyInboundSignature(scheme, lookup(good), enc(body), NOW)).toEqual({ ok: true });
      for (const other of ['sha1', 'sha256', 'sha512'].filter((a) => a !== algorithm)) {
        const wrong = { 'x-signature': mac(other, body).toString(encoding) };
        expect(verifyInboundSignature(scheme, lookup(wrong), enc(body), NOW)).toMatchObject({ ok: false });
      }
    },
  );

  it('R-RH-INBOUND: a wrong secret, a missing header and text in another encoding are refused', () => {
    const scheme: VerificationScheme = {
      kind: 'hmac',
      header: 'X-Signature',
      algorithm: 'sha256',
      encoding: 'hex',
      secrets: [secret],
    };
    expect(
      verifyInboundSignature(
        scheme,
        lookup({ 'x-signature': mac('sha256', body, 'nope-nope-nope-nope').toString('hex') }),
        enc(body),
        NOW,
      ),
    ).toMatchObject({ ok: false, reason: 'signature_mismatch' });
    expect(verifyInboundSignature(scheme, lookup({}), enc(body), NOW)).toMatchObject({
      ok: false,
      reason: 'missing_header',
    });
    expect(
      verifyInboundSignature(
        scheme,
        lookup({ 'x-signature': mac('sha256', body).toString('base64') }),
        enc(body),
        NOW,
      ),
    ).toMatchObject({ ok: false, reason: 'malformed_signature' });
    // A truncated signature is a mismatch, not a prefix match.
    const half = mac('sha256', body).toString('hex').slice(0, 32);
    expect(verifyInboundSignature(scheme, lookup({ 'x-signature': half }), enc(body), NOW)).toMatchObject({
      ok: false,
      reason: 'signature_mismatch',
    });
  });

  it('R-RH-INBOUND: a source without verification accepts any request', () => {
    expect(verifyInboundSignature({ kind: 'none' }, lookup({}), enc(body), NOW)).toEqual({ ok: true });
  });

  it('R-RH-INBOUND: safeEqual compares content and length', () => {
    expect(safeEqual(enc('abc'), enc('abc'))).toBe(true);
    expect(safeEqual(enc('abc'), enc('abd'))).toBe(false);
    expect(safeEqual(enc('abc'), enc('abcd'))).toBe(false);
  });
});

describe('R-RH-INBOUND forwarded request: headers and body', () => {
  it('R-RH-INBOUND: hop-by-hop headers, host and content-length are dropped; the rest keep order and spelling', () => {
    const headers: Array<[string, string]> = [
      ['Host', 'herald.test'],
      ['Content-Type', 'application/x-www-form-urlencoded'],
      ['Connection', 'keep-alive, X-Hop'],
      ['X-Hop', 'drop me'],
      ['Content-Length', '12'],
      ['Transfer-Encoding', 'chunked'],
      ['X-Custom', 'one'],
      ['x-custom', 'two'],
      ['Keep-Alive', 'timeout=5'],
      ['Webhook-Signature', 'v1,abc'],
    ];
    expect(forwardableHeaders(headers)).toEqual([
      ['Content-Type', 'application/x-www-form-urlencoded'],
      ['X-Custom', 'one'],
      ['x-custom', 'two'],
      ['Webhook-Signature', 'v1,abc'],
    ]);
    const list = forwardHeaderList(
      { sourceId: 's', destinationId: 'd', requestId: 'r', receivedAt: '', headers, bodyEncoding: 'utf8' },
      'Webhook-Delivery-Id',
      'fwd_1',
      3,
    );
    expect(list.slice(-4)).toEqual(['Webhook-Delivery-Id', 'fwd_1:3', 'Idempotency-Key', 'fwd_1']);
  });

  it("R-RH-INBOUND: the sender's Idempotency-Key is kept; a spoofed delivery-id header is replaced", () => {
    const list = forwardHeaderList(
      {
        sourceId: 's',
        destinationId: 'd',
        requestId: 'r',
        receivedAt: '',
        headers: [
          ['Idempotency-Key', 'sender-key'],
          ['webhook-delivery-id', 'forged'],
        ],
        bodyEncoding: 'utf8',
      },
      'Webhook-Delivery-Id',
      'fwd_2',
      1,
    );
    expect(list).toEqual(['Idempotency-Key', 'sender-key', 'Webhook-Delivery-Id', 'fwd_2:1']);
  });

  it('R-RH-INBOUND: UTF-8 bodies are kept as text, anything else as base64; both come back byte-for-byte', () => {
    const text = enc('{"emoji":"\u{1F600}","bom":"\uFEFF"}');
    const binary = Uint8Array.from([0xef, 0xbb, 0xbf, 0xff, 0x00, 0x80]);
    const withBom = Uint8Array.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]);
    for (const bytes of [text, binary, withBom, new Uint8Array(0)]) {
      const s = storeBody(bytes);
      expect(Buffer.compare(forwardBodyBytes(s.body, s.bodyEncoding), Buffer.from(bytes))).toBe(0);
    }
    expect(storeBody(text).bodyEncoding).toBe('utf8');
    expect(storeBody(binary).bodyEncoding).toBe('base64');
    expect(storeBody(withBom).bodyEncoding).toBe('utf8');
  });
});
