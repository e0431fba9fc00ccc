import jsonata from 'jsonata';
import type { EventEnvelope } from '../shared/delivery-types.js';

/**
 * Transformations (R-RH-TRANSFORM) are JSONata expressions. This module holds the pure
 * parts: checking an expression when it is saved, building what it reads, and turning
 * what it returns into the request Herald sends. Evaluation happens in the sandbox.
 */

export const MAX_TRANSFORMATION_CHARS = 16_384;
export const TRANSFORM_METHODS = ['POST', 'PUT', 'PATCH'] as const;
export type TransformMethod = (typeof TRANSFORM_METHODS)[number];
const MAX_HEADERS = 32;
const MAX_HEADER_VALUE_CHARS = 8192;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// Herald's own headers (the signature covers the body it computes) and hop-by-hop
// framing: a transformation may not set these.
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'idempotency-key',
  'smengo-delivery-id',
]);
const isReserved = (name: string) => RESERVED_HEADERS.has(name) || name.startsWith('webhook-');

export type ValidationResult = { ok: true } | { ok: false; message: string; position?: number };

/** Compiles the expression (cheap, no evaluation): a syntax error names what and where. */
export function validateTransformation(expression: string): ValidationResult {
  if (expression.trim() === '') return { ok: false, message: 'the transformation is empty' };
  if (expression.length > MAX_TRANSFORMATION_CHARS)
    return { ok: false, message: `the transformation is longer than ${MAX_TRANSFORMATION_CHARS} characters` };
  try {
    jsonata(expression);
    return { ok: true };
  } catch (err) {
    const e = err as { code?: unknown; message?: unknown; position?: unknown; token?: unknown };
    const position = typeof e.position === 'number' ? e.position : undefined;
    const code = typeof e.code === 'string' ? `${e.code}: ` : '';
    const message = typeof e.message === 'string' ? e.message : String(err);
    return {
      ok: false,
      message: `${code}${message}${position !== undefined ? ` (at position ${position})` : ''}`,
      position,
    };
  }
}

/** What an expression reads: `$` is this object. */
export interface TransformInput {
  id: string;
  type: string;
  occurredAt: string;
  /** The event's payload: `data` of Herald's envelope, else the whole body (parsed if JSON). */
  payload: unknown;
  /** Headers the event arrived with (inbound forwards); empty for published events. */
  headers: Record<string, string>;
}

export function transformInput(event: EventEnvelope & { headers?: Record<string, string> }): TransformInput {
  let payload: unknown = event.body;
  try {
    const parsed: unknown = JSON.parse(event.body);
    payload = isHeraldEnvelope(parsed) ? parsed.data : parsed;
  } catch {
    // Not JSON (an inbound body can be anything): the expression gets the text.
  }
  return {
    id: event.id,
    type: event.type,
    occurredAt: event.occurredAt,
    payload,
    headers: { ...event.headers },
  };
}

function isHeraldEnvelope(v: unknown): v is { type: string; timestamp: string; data: unknown } {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const keys = Object.keys(v);
  return keys.length === 3 && 'type' in v && 'timestamp' in v && 'data' in v;
}

/** The request a transformation asks for; `body` is the exact text signed and sent. */
export interface TransformedRequest {
  method: TransformMethod;
  /** Lower-case names; always includes content-type. */
  headers: Record<string, string>;
  body: string;
}

export type Interpreted = { ok: true; request: TransformedRequest } | { ok: false; reason: string };

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * An object with `body` and nothing but `headers` and `method` besides is a request;
 * any other value is the body. A string body is sent as it is (text/plain unless the
 * expression sets content-type), anything else as JSON.
 */
export function interpretResult(json: string | undefined): Interpreted {
  if (json === undefined) return { ok: false, reason: 'the transformation produced no value' };
  const value: unknown = JSON.parse(json);
  const envelope =
    isPlainObject(value) &&
    Object.hasOwn(value, 'body') &&
    Object.keys(value).every((k) => k === 'body' || k === 'headers' || k === 'method');
  const body = envelope ? value.body : value;
  if (body === undefined) return { ok: false, reason: 'the transformation produced no body' };

  let method: TransformMethod = 'POST';
  if (envelope && value.method !== undefined) {
    const m = typeof value.method === 'string' ? value.method.toUpperCase() : '';
    if (!(TRANSFORM_METHODS as readonly string[]).includes(m))
      return { ok: false, reason: `method must be one of ${TRANSFORM_METHODS.join(', ')}` };
    method = m as TransformMethod;
  }

  const headers: Record<string, string> = {
    'content-type': typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json',
  };
  if (envelope && value.headers !== undefined) {
    if (!isPlainObject(value.headers)) return { ok: false, reason: 'headers must be an object of strings' };
    const entries = Object.entries(value.headers);
    if (entries.length > MAX_HEADERS) return { ok: false, reason: `more than ${MAX_HEADERS} headers` };
    for (const [rawName, raw] of entries) {
      const name = rawName.toLowerCase();
      if (!HEADER_NAME.test(name)) return { ok: false, reason: `"${rawName}" is not a header name` };
      if (isReserved(name)) return { ok: false, reason: `header "${name}" is set by Herald` };
      if (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean')
        return { ok: false, reason: `header "${name}" must be a string` };
      const v = String(raw);
      if (!/^[\t\x20-\x7e]*$/.test(v) || v.length > MAX_HEADER_VALUE_CHARS)
        return {
          ok: false,
          reason: `header "${name}" must be printable ASCII of at most ${MAX_HEADER_VALUE_CHARS} characters`,
        };
      headers[name] = v;
    }
  }
  return {
    ok: true,
    request: { method, headers, body: typeof body === 'string' ? body : JSON.stringify(body) },
  };
}
