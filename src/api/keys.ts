import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * API keys look like `hk.<tenantId>.<keyId>.<secret>`: the tenant and key id route the
 * lookup, only a sha256 of the secret is stored, and the key is shown once.
 */
export function newApiKey(tenantId: string): { keyId: string; key: string; hash: string } {
  const keyId = `key_${randomBytes(6).toString('hex')}`;
  const secret = randomBytes(24).toString('base64url');
  return { keyId, key: `hk.${tenantId}.${keyId}.${secret}`, hash: hashSecret(secret) };
}

export function parseApiKey(key: string): { tenantId: string; keyId: string; secret: string } | undefined {
  const m = /^hk\.(tn_[A-Za-z0-9]+)\.(key_[a-f0-9]+)\.([A-Za-z0-9_-]{20,})$/.exec(key);
  return m ? { tenantId: m[1]!, keyId: m[2]!, secret: m[3]! } : undefined;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

export function sameSecret(a: string, b: string): boolean {
  return sameHash(hashSecret(a), hashSecret(b));
}

export function newId(prefix: string, bytes = 12): string {
  return `${prefix}_${randomBytes(bytes).toString('hex')}`;
}
