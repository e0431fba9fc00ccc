import { describe, expect, it } from 'vitest';
import {
  interpretResult,
  MAX_TRANSFORMATION_CHARS,
  transformInput,
  validateTransformation,
} from '../../../src/transform/expression.js';

const heraldBody = (data: unknown) =>
  JSON.stringify({ type: 'order.paid', timestamp: '2026-01-01T00:00:00Z', data });

describe('R-RH-TRANSFORM: checking a transformation when it is saved', () => {
  it('accepts a mapping', () => {
    expect(validateTransformation('{ "kind": type, "total": payload.amount / 100 }')).toEqual({ ok: true });
  });

  it('names the syntax error and where it is', () => {
    const r = validateTransformation('{ "kind": type, "total": payload.amount / }');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.message).toMatch(/^S0\d{3}: /);
    expect(r.position).toBeGreaterThan(30);
    expect(r.message).toContain(`at position ${r.position}`);
  });

  it('refuses an empty or an oversized expression', () => {
    expect(validateTransformation('   ')).toMatchObject({
      ok: false,
      message: 'the transformation is empty',
    });
    expect(validateTransformation(`"${'x'.repeat(MAX_TRANSFORMATION_CHARS)}"`)).toMatchObject({ ok: false });
  });

  it('refuses nesting deep enough to overflow the parser instead of throwing', () => {
    const deep = '('.repeat(5000) + '1' + ')'.repeat(5000);
    expect(validateTransformation(deep).ok).toBe(false);
  });
});

describe('R-RH-TRANSFORM: what an expression reads', () => {
  it('gets the payload out of Herald’s envelope, with type, id and time', () => {
    const input = transformInput({
      id: 'evt_1',
      type: 'order.paid',
      occurredAt: '2026-01-01T00:00:00Z',
      body: heraldBody({ amount: 4200 }),
    });
    expect(input).toEqual({
      id: 'evt_1',
      type: 'order.paid',
      occurredAt: '2026-01-01T00:00:00Z',
      payload: { amount: 4200 },
      headers: {},
    });
  });

  it('reads any other body whole, as JSON or as text, with the headers it came with', () => {
    const base = { id: 'e', type: 't', occurredAt: 'x' };
    expect(transformInput({ ...base, body: '{"a":1}' }).payload).toEqual({ a: 1 });
    expect(transformInput({ ...base, body: 'a=1&b=2', headers: { 'x-src': 'y' } })).toMatchObject({
      payload: 'a=1&b=2',
      headers: { 'x-src': 'y' },
    });
  });
});

describe('R-RH-TRANSFORM: what an expression returns', () => {
  it('any value is the JSON body of a POST', () => {
    expect(interpretResult(JSON.stringify({ kind: 'paid', total: 42 }))).toEqual({
      ok: true,
      request: {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"kind":"paid","total":42}',
      },
    });
  });

  it('{ body, headers, method } chooses all three; a string body is sent as it is', () => {
    const r = interpretResult(
      JSON.stringify({
        body: 'text=hi',
        method: 'put',
        headers: { 'X-Kind': 'paid', 'Content-Type': 'application/x-www-form-urlencoded' },
      }),
    );
    expect(r).toEqual({
      ok: true,
      request: {
        method: 'PUT',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-kind': 'paid' },
        body: 'text=hi',
      },
    });
  });

  it('an object with body and other fields is itself the body', () => {
    const value = { body: 'x', note: 1 };
    expect(interpretResult(JSON.stringify(value))).toMatchObject({
      ok: true,
      request: { body: JSON.stringify(value) },
    });
  });

  it('refuses no value, a method outside POST/PUT/PATCH and headers Herald sets or cannot send', () => {
    expect(interpretResult(undefined)).toMatchObject({ ok: false });
    expect(interpretResult(JSON.stringify({ body: 1, method: 'GET' }))).toMatchObject({ ok: false });
    for (const name of ['webhook-signature', 'Webhook-Id', 'idempotency-key', 'content-length', 'host'])
      expect(interpretResult(JSON.stringify({ body: 1, headers: { [name]: 'x' } }))).toMatchObject({
        ok: false,
        reason: expect.stringContaining('set by Herald'),
      });
    expect(interpretResult(JSON.stringify({ body: 1, headers: { 'x-a': 'a\r\nb: c' } }))).toMatchObject({
      ok: false,
    });
    expect(interpretResult(JSON.stringify({ body: 1, headers: { 'bad name': 'x' } }))).toMatchObject({
      ok: false,
    });
    expect(interpretResult(JSON.stringify({ body: 1, headers: { 'x-a': { n: 1 } } }))).toMatchObject({
      ok: false,
    });
  });
});
