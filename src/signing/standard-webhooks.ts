import { createHmac, randomBytes } from 'node:crypto';

/**
 * Standard Webhooks (https://www.standardwebhooks.com/) symmetric signing, `v1` scheme.
 *
 * The signature covers `{id}.{timestamp}.{body}`, so the caller must send exactly the
 * body string given here (as UTF-8) and the same id and timestamp in the headers.
 * Each attempt signs afresh with the send-time timestamp (R-SIGN): a retried or
 * replayed request then still passes the receiver's 5-minute tolerance.
 */

const SECRET_PREFIX = 'whsec_';
// The spec's symmetric row: "Random. Between 24 bytes (192 bits) and 64 bytes (512 bits)".
const MIN_SECRET_BYTES = 24;
const MAX_SECRET_BYTES = 64;
const GENERATED_SECRET_BYTES = 32;
// Node's base64 decoder silently skips characters outside the alphabet, so a typo in a
// pasted secret would otherwise yield a different key instead of an error.
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

export type StandardWebhookHeaders = Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string>;

/** A fresh endpoint secret in the form shown to tenants: `whsec_` + base64 of 32 random bytes. */
export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(GENERATED_SECRET_BYTES).toString('base64');
}

/**
 * The HMAC key of a `whsec_<base64>` secret. The prefix is required: Herald stores and
 * shows secrets only in that form, and a bare string is more likely a mistake (for
 * example a raw password) than a key.
 */
export function decodeSecret(secret: string): Buffer {
  if (typeof secret !== 'string' || !secret.startsWith(SECRET_PREFIX)) {
    throw new Error(`signing secret must have the form ${SECRET_PREFIX}<base64>`);
  }
  const encoded = secret.slice(SECRET_PREFIX.length);
  if (!BASE64.test(encoded)) {
    throw new Error(`signing secret is not valid base64 after ${SECRET_PREFIX}`);
  }
  const key = Buffer.from(encoded, 'base64');
  // Re-encoding catches non-canonical input (stray bits in the last character, bad
  // padding) that the decoder would otherwise accept and silently alter.
  if (key.toString('base64').replace(/=+$/, '') !== encoded.replace(/=+$/, '')) {
    throw new Error(`signing secret is not canonical base64 after ${SECRET_PREFIX}`);
  }
  if (key.length < MIN_SECRET_BYTES || key.length > MAX_SECRET_BYTES) {
    throw new Error(
      `signing secret must decode to ${MIN_SECRET_BYTES}-${MAX_SECRET_BYTES} bytes, got ${key.length}`,
    );
  }
  return key;
}

/**
 * Why a tenant-supplied secret cannot sign, or undefined when it can. It runs exactly the
 * decoding `sign` runs, so a secret the API accepts can never fail at send time (a secret
 * that only failed in the worker once made a delivery retry forever). The reason names
 * the rule broken, never the secret.
 */
export function secretProblem(secret: unknown): string | undefined {
  try {
    decodeSecret(secret as string);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

function assertSignable(msgId: string, timestampSeconds: number): void {
  if (typeof msgId !== 'string' || msgId.length === 0) {
    throw new Error('webhook-id must be a non-empty string');
  }
  // Receivers parse the header as an integer; a fractional or millisecond value would
  // sign one string and be verified against another, or fail the tolerance check.
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new Error(`webhook-timestamp must be whole unix seconds, got ${timestampSeconds}`);
  }
}

/** One `v1,<base64 HMAC-SHA256>` signature over `{msgId}.{timestampSeconds}.{body}`. */
export function sign(secret: string, msgId: string, timestampSeconds: number, body: string): string {
  assertSignable(msgId, timestampSeconds);
  const mac = createHmac('sha256', decodeSecret(secret))
    .update(`${msgId}.${timestampSeconds}.${body}`, 'utf8')
    .digest('base64');
  return `v1,${mac}`;
}

/**
 * The `webhook-signature` value: one signature per active secret, space-separated. During
 * rotation both the old and the new secret are active, so a receiver that has not yet
 * switched keys still finds a match.
 */
export function signatureHeader(
  secrets: string[],
  msgId: string,
  timestampSeconds: number,
  body: string,
): string {
  if (secrets.length === 0) {
    throw new Error('at least one signing secret is required');
  }
  const signatures = secrets.map((secret) => sign(secret, msgId, timestampSeconds, body));
  // A secret listed twice (e.g. a rotation that re-saved the same value) adds nothing.
  return [...new Set(signatures)].join(' ');
}

/** The three Standard Webhooks headers for one send. */
export function standardWebhookHeaders(args: {
  secrets: string[];
  msgId: string;
  timestampSeconds: number;
  body: string;
}): StandardWebhookHeaders {
  const { secrets, msgId, timestampSeconds, body } = args;
  return {
    'webhook-id': msgId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signatureHeader(secrets, msgId, timestampSeconds, body),
  };
}
