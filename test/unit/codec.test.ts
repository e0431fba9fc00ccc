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

  it('refuses a key that is not 32 bytes', () => {
    expect(() => new AesGcmCodec(['c2hvcnQ='])).toThrow(/32 bytes/);
  });
});
