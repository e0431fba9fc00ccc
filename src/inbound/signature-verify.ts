import { createHmac, timingSafeEqual } from 'node:crypto';
import type { VerificationScheme } from '../shared/source-types.js';
import { decodeSecret } from '../signing/standard-webhooks.js';

export type { VerificationScheme } from '../shared/source-types.js';
type SignatureEncoding = 'hex' | 'base64' | 'base64url';

/**
 * Signature checks: how an inbound source checks that a request really comes from its sender
 * (R-RH-INBOUND). Pure: the caller hands in the raw body bytes, a header lookup and the
 * clock, so the same function serves the ingest route and the unit tests.
 */

export type VerifyFailure =
  | 'missing_header'
  | 'invalid_timestamp'
  | 'timestamp_out_of_tolerance'
  | 'malformed_signature'
  | 'signature_mismatch';

export type VerifyResult = { ok: true } | { ok: false; reason: VerifyFailure; detail: string };

export const STANDARD_WEBHOOKS_TOLERANCE_SECONDS = 300;

/** Header lookup, case-insensitive; undefined when absent. */
export type HeaderLookup = (lowerName: string) => string | undefined;

const fail = (reason: VerifyFailure, detail: string): VerifyResult => ({ ok: false, reason, detail });

/** Constant-time comparison of two byte strings of possibly different lengths. */
export function safeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) {
    // Still spend a comparison so timing does not tell a length mismatch from a content one.
    timingSafeEqual(a, a);
    return false;
  }
  return timingSafeEqual(a, b);
}

const HEX = /^(?:[0-9a-fA-F]{2})+$/;
const B64 = /^[A-Za-z0-9+/]+={0,2}$/;
const B64URL = /^[A-Za-z0-9_-]+={0,2}$/;

/** Decodes a signature as the scheme says it is written; undefined for text that is not. */
function decodeSignature(text: string, encoding: SignatureEncoding): Buffer | undefined {
  const t = text.trim();
  if (encoding === 'hex') return HEX.test(t) ? Buffer.from(t, 'hex') : undefined;
  if (encoding === 'base64') return B64.test(t) ? Buffer.from(t, 'base64') : undefined;
  return B64URL.test(t) ? Buffer.from(t.replace(/=+$/, ''), 'base64url') : undefined;
}

function verifyStandardWebhooks(
  scheme: Extract<VerificationScheme, { kind: 'standard_webhooks' }>,
  header: HeaderLookup,
  body: Uint8Array,
  nowSeconds: number,
): VerifyResult {
  const id = header('webhook-id');
  const ts = header('webhook-timestamp');
  const sig = header('webhook-signature');
  if (!id || !ts || !sig)
    return fail('missing_header', 'webhook-id, webhook-timestamp and webhook-signature are required');
  if (!/^\d{1,12}$/.test(ts.trim()))
    return fail('invalid_timestamp', 'webhook-timestamp is not unix seconds');
  const tolerance = scheme.toleranceSeconds ?? STANDARD_WEBHOOKS_TOLERANCE_SECONDS;
  if (Math.abs(nowSeconds - Number(ts.trim())) > tolerance)
    return fail('timestamp_out_of_tolerance', `webhook-timestamp is more than ${tolerance} s from now`);
  const offered = sig
    .trim()
    .split(/\s+/)
    .map((part) => {
      const comma = part.indexOf(',');
      return comma < 0 ? undefined : { version: part.slice(0, comma), value: part.slice(comma + 1) };
    });
  const v1 = offered
    .filter((o): o is { version: string; value: string } => o?.version === 'v1')
    .map((o) => decodeSignature(o.value, 'base64'))
    .filter((b): b is Buffer => b !== undefined);
  if (v1.length === 0) return fail('malformed_signature', 'webhook-signature holds no v1,<base64> signature');
  // The signed content is `{id}.{timestamp}.{body}` over the raw bytes as received.
  const prefix = Buffer.from(`${id}.${ts}.`, 'utf8');
  let match = false;
  for (const secret of scheme.secrets) {
    const mac = createHmac('sha256', decodeSecret(secret)).update(prefix).update(body).digest();
    // Every candidate is compared (no early exit), so timing does not reveal which matched.
    for (const candidate of v1) match = safeEqual(mac, candidate) || match;
  }
  return match ? { ok: true } : fail('signature_mismatch', 'no signature matches the body');
}

function verifyHmac(
  scheme: Extract<VerificationScheme, { kind: 'hmac' }>,
  header: HeaderLookup,
  body: Uint8Array,
): VerifyResult {
  const raw = header(scheme.header.toLowerCase());
  if (raw === undefined || raw.trim() === '') return fail('missing_header', `${scheme.header} is required`);
  let text = raw.trim();
  if (scheme.prefix) {
    if (!text.startsWith(scheme.prefix))
      return fail('malformed_signature', `${scheme.header} does not start with ${scheme.prefix}`);
    text = text.slice(scheme.prefix.length);
  }
  const given = decodeSignature(text, scheme.encoding);
  if (!given) return fail('malformed_signature', `${scheme.header} is not ${scheme.encoding}`);
  let match = false;
  for (const secret of scheme.secrets) {
    const mac = createHmac(scheme.algorithm, Buffer.from(secret, 'utf8')).update(body).digest();
    match = safeEqual(mac, given) || match;
  }
  return match ? { ok: true } : fail('signature_mismatch', 'the signature does not match the body');
}

/** Checks one inbound request against its source's scheme. */
export function verifyInboundSignature(
  scheme: VerificationScheme,
  header: HeaderLookup,
  body: Uint8Array,
  nowSeconds: number,
): VerifyResult {
  switch (scheme.kind) {
    case 'none':
      return { ok: true };
    case 'standard_webhooks':
      return verifyStandardWebhooks(scheme, header, body, nowSeconds);
    case 'hmac':
      return verifyHmac(scheme, header, body);
  }
}

/** A header lookup over `[name, value]` pairs (repeated names joined with ", " as HTTP allows). */
export function headerLookup(pairs: ReadonlyArray<readonly [string, string]>): HeaderLookup {
  const m = new Map<string, string>();
  for (const [k, v] of pairs) {
    const key = k.toLowerCase();
    const prev = m.get(key);
    m.set(key, prev === undefined ? v : `${prev}, ${v}`);
  }
  return (name) => m.get(name);
}
