import type { ForwardRequest } from '../shared/source-types.js';

/**
 * Headers that describe one connection, not the message (RFC 9110 §7.6.1), plus the ones
 * the outgoing request computes itself. Everything else the sender sent is forwarded.
 */
const NOT_FORWARDED = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
  // undici refuses it, and a 100-continue handshake belongs to the inbound connection.
  'expect',
  // HTTP/2 pseudo-headers never appear in HTTP/1.1 but are never headers either.
]);

/** The original request's headers minus hop-by-hop ones (and any the `Connection` header names). */
export function forwardableHeaders(
  headers: ReadonlyArray<readonly [string, string]>,
): Array<[string, string]> {
  const named = new Set<string>();
  for (const [k, v] of headers)
    if (k.toLowerCase() === 'connection')
      for (const t of v.split(',')) if (t.trim()) named.add(t.trim().toLowerCase());
  return headers
    .filter(([k]) => {
      const key = k.toLowerCase();
      return !key.startsWith(':') && !NOT_FORWARDED.has(key) && !named.has(key);
    })
    .map(([k, v]) => [k, v]);
}

/**
 * The headers of one forward attempt, as undici's flat `[name, value, ...]` list: the
 * original headers in their order and spelling, then Herald's delivery id
 * (`<forwardId>:<attempt>`, R-HDR). The sender's own signature headers stay as they were:
 * the body is forwarded byte-for-byte, so they still verify at the destination; Herald
 * adds no signature of its own, which would replace a Standard Webhooks sender's
 * `webhook-signature`. An Idempotency-Key is added only if the sender sent none.
 */
export function forwardHeaderList(
  fwd: ForwardRequest,
  deliveryIdHeader: string,
  forwardId: string,
  attempt: number,
): string[] {
  const own = deliveryIdHeader.toLowerCase();
  const kept = forwardableHeaders(fwd.headers).filter(([k]) => k.toLowerCase() !== own);
  const out = kept.flat();
  out.push(deliveryIdHeader, `${forwardId}:${attempt}`);
  if (!kept.some(([k]) => k.toLowerCase() === 'idempotency-key')) out.push('Idempotency-Key', forwardId);
  return out;
}

/** The stored body back as the bytes that arrived. */
export function forwardBodyBytes(body: string, encoding: ForwardRequest['bodyEncoding']): Buffer {
  return encoding === 'base64' ? Buffer.from(body, 'base64') : Buffer.from(body, 'utf8');
}

/** How a received body is kept: as text when it is valid UTF-8 (round-trips exactly), else base64. */
export function storeBody(bytes: Uint8Array): { body: string; bodyEncoding: ForwardRequest['bodyEncoding'] } {
  try {
    const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    return { body: text, bodyEncoding: 'utf8' };
  } catch {
    return { body: Buffer.from(bytes).toString('base64'), bodyEncoding: 'base64' };
  }
}
