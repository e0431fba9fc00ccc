import type { Payload, PayloadCodec } from '@temporalio/common';
import proto from '@temporalio/proto';
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const ENCODING = 'binary/encrypted';
const CIPHER = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Encrypts every payload Herald writes to Temporal (workflow inputs, results, signals,
 * queries), so signing secrets and event bodies never sit in history in plaintext. The
 * key id travels with each payload so keys can be rotated: old payloads name their key.
 */
export class AesGcmCodec implements PayloadCodec {
  private readonly keys = new Map<string, Buffer>();
  private readonly currentId: string;

  private readonly acceptPlaintext: boolean;

  /**
   * `keys`: base64 32-byte keys, current first; older ones only decrypt.
   * `acceptPlaintext`: pass unencrypted payloads through decode instead of refusing them
   * (histories written before the codec was on; see HERALD_CODEC_ACCEPT_PLAINTEXT).
   */
  constructor(keys: string[], opts: { acceptPlaintext?: boolean } = {}) {
    this.acceptPlaintext = opts.acceptPlaintext ?? false;
    if (keys.length === 0) throw new Error('AesGcmCodec needs at least one key');
    for (const k of keys) {
      const raw = Buffer.from(k, 'base64');
      if (raw.length !== 32) throw new Error('a codec key must be 32 bytes, base64-encoded');
      this.keys.set(keyId(raw), raw);
    }
    this.currentId = keyId(Buffer.from(keys[0]!, 'base64'));
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    const key = this.keys.get(this.currentId)!;
    return payloads.map((p) => {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv(CIPHER, key, iv);
      const plain = proto.temporal.api.common.v1.Payload.encode(p).finish();
      const data = Buffer.concat([iv, cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
      return {
        metadata: {
          encoding: Buffer.from(ENCODING),
          'encryption-key-id': Buffer.from(this.currentId),
        },
        data,
      };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => {
      if (Buffer.from(p.metadata?.encoding ?? []).toString() !== ENCODING) {
        // Every payload Herald writes is encrypted, so a plain one was written by someone
        // else, or before the codec was on: unauthenticated input, refused unless migrating.
        if (this.acceptPlaintext) return p;
        throw new PlaintextPayloadError();
      }
      const id = Buffer.from(p.metadata?.['encryption-key-id'] ?? []).toString();
      const key = this.keys.get(id);
      if (!key)
        throw new Error(
          `no codec key with id ${id}: was HERALD_CODEC_KEYS rotated without keeping the old key?`,
        );
      const data = Buffer.from(p.data ?? []);
      // Shorter, the IV and tag would overlap, and Node accepts a GCM tag of 4 bytes.
      if (data.length < IV_BYTES + TAG_BYTES)
        throw new Error(
          `encrypted payload too short: ${data.length} bytes, at least ${IV_BYTES + TAG_BYTES}`,
        );
      const iv = data.subarray(0, IV_BYTES);
      const tag = data.subarray(data.length - TAG_BYTES);
      const decipher = createDecipheriv(CIPHER, key, iv, { authTagLength: TAG_BYTES });
      decipher.setAuthTag(tag);
      const plain = Buffer.concat([
        decipher.update(data.subarray(IV_BYTES, data.length - TAG_BYTES)),
        decipher.final(),
      ]);
      return proto.temporal.api.common.v1.Payload.decode(plain);
    });
  }
}

export class PlaintextPayloadError extends Error {
  override name = 'PlaintextPayloadError';
  constructor() {
    super(
      'refusing to decode an unencrypted payload; set HERALD_CODEC_ACCEPT_PLAINTEXT=true only while migrating histories written without the codec',
    );
  }
}

function keyId(raw: Buffer): string {
  return createHash('sha256').update(raw).digest('hex').slice(0, 16);
}

export function generateCodecKey(): string {
  return randomBytes(32).toString('base64');
}
