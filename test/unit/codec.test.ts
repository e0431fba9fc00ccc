import { defaultPayloadConverter } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { AesGcmCodec, generateCodecKey } from '../../src/temporal/codec.js';

describe('payload codec: secrets never sit in Temporal history in plaintext', () => {
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const payload = defaultPayloadConverter.toPayload({ target: { secrets: [secret] } });

  it('encrypts: the stored bytes contain neither the secret nor its encoding', async () => {
    const codec = new AesGcmCodec([generateCodecKey()]);
    const [enc] = await codec.encode([payload]);
    const stored = Buffer.from(enc!.data!).toString('latin1');
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
    expect(Buffer.from(enc!.metadata!.encoding!).toString()).toBe('binary/encrypted');
    const [dec] = await codec.decode([enc!]);
    expect(defaultPayloadConverter.fromPayload(dec!)).toEqual({ target: { secrets: [secret] } });
  });

  it('rotation: a payload written under the old key still decrypts when the new key leads', async () => {
    const oldKey = generateCodecKey();
    const [enc] = await new AesGcmCodec([oldKey]).encode([payload]);
    const rotated = new AesGcmCodec([generateCodecKey(), oldKey]);
    const [dec] = await rotated.decode([enc!]);
    expect(defaultPayloadConverter.fromPayload(dec!)).toEqual({ target: { secrets: [secret] } });
    await expect(new AesGcmCodec([generateCodecKey()]).decode([enc!])).rejects.toThrow(/no codec key/);
  });

  it('tampered ciphertext is rejected, not decoded into garbage', async () => {
    const codec = new AesGcmCodec([generateCodecKey()]);
    const [enc] = await codec.encode([payload]);
    const data = Buffer.from(enc!.data!);
    data[20] = data[20]! ^ 1;
    await expect(codec.decode([{ ...enc!, data }])).rejects.toThrow();
  });

  it('a payload too short to hold its IV and a full 16-byte tag is refused as such, never checked against a shorter tag', async () => {
    const codec = new AesGcmCodec([generateCodecKey()]);
    const [enc] = await codec.encode([payload]);
    for (const n of [0, 12, 16, 27])
      await expect(codec.decode([{ ...enc!, data: Buffer.from(enc!.data!).subarray(0, n) }])).rejects.toThrow(
        /too short/,
      );
  });

  it('refuses a key that is not 32 bytes', () => {
    expect(() => new AesGcmCodec(['c2hvcnQ='])).toThrow(/32 bytes/);
  });
});

describe('codec endpoint for the Temporal Web UI', () => {
  it('decodes encrypted payloads for a caller with the token, and answers CORS only for the UI origin', async () => {
    const { codecApp } = await import('../../src/api/codec-server.js');
    const key = generateCodecKey();
    const token = 'codec-token-0123456789abcdef0123456789';
    const app = codecApp({
      codec: new AesGcmCodec([key], { acceptPlaintext: true }),
      token,
      origins: ['http://127.0.0.1:8233'],
      maxBodyBytes: 1 << 20,
    });
    const [enc] = await new AesGcmCodec([key]).encode([
      defaultPayloadConverter.toPayload({ hello: 'operator' }),
    ]);
    const b64 = (u?: Uint8Array | null) => Buffer.from(u ?? []).toString('base64');
    const res = await app.request(`/${token}/decode`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://127.0.0.1:8233' },
      body: JSON.stringify({
        payloads: [
          {
            metadata: Object.fromEntries(Object.entries(enc!.metadata!).map(([k, v]) => [k, b64(v)])),
            data: b64(enc!.data),
          },
        ],
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:8233');
    const out = (await res.json()) as { payloads: Array<{ data: string }> };
    expect(JSON.parse(Buffer.from(out.payloads[0]!.data, 'base64').toString())).toEqual({
      hello: 'operator',
    });

    const evil = await app.request(`/${token}/decode`, {
      method: 'OPTIONS',
      headers: { origin: 'http://evil.test' },
    });
    expect(evil.status).toBe(403);
    expect(evil.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('is no longer served on the API', async () => {
    const { createApp } = await import('../../src/api/app.js');
    const { loadConfig } = await import('../../src/config.js');
    const app = createApp({
      client: {} as never,
      config: loadConfig({ HERALD_CODEC_KEYS: generateCodecKey(), HERALD_CODEC_ENDPOINT: 'true' }),
    });
    expect((await app.request('/codec/decode', { method: 'POST' })).status).toBe(404);
  }, 30_000); // importing the whole API is most of this test, past 5 s on a loaded machine
});

describe('payload codec: plaintext', () => {
  it('refuses to decode an unencrypted payload, unless migrating', async () => {
    const plain = defaultPayloadConverter.toPayload({ injected: true });
    await expect(new AesGcmCodec([generateCodecKey()]).decode([plain])).rejects.toThrow(
      /unencrypted payload/,
    );
    const [passed] = await new AesGcmCodec([generateCodecKey()], { acceptPlaintext: true }).decode([plain]);
    expect(defaultPayloadConverter.fromPayload(passed!)).toEqual({ injected: true });
  });
});
