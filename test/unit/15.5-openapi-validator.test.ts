import { OpenAPIHono, createRoute, z } from '@hono/zod-openapi';
import { describe, expect, it } from 'vitest';
import { validate, operationOf, type OpenApiDoc } from '../helpers/openapi-conformance.js';

/**
 * The conformance checker (test/integration/15.5-openapi-conformance.test.ts) is only as good
 * as its validator: these cases prove it reports the drift issue 15 names, on documents
 * generated the way Herald's is.
 */
async function docWith(schema: z.ZodType): Promise<OpenApiDoc> {
  const app = new OpenAPIHono();
  app.openapi(
    createRoute({
      method: 'get',
      path: '/x/{id}',
      request: { params: z.object({ id: z.string() }) },
      responses: { 200: { description: 'x', content: { 'application/json': { schema } } } },
    }),
    (c) => c.json({} as never, 200),
  );
  app.openapi(
    createRoute({ method: 'get', path: '/x/recent', responses: { 200: { description: 'recent' } } }),
    (c) => c.body(null, 200),
  );
  return app.getOpenAPI31Document({
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
  }) as unknown as OpenApiDoc;
}
const check = async (schema: z.ZodType, value: unknown) => {
  const doc = await docWith(schema);
  return validate(
    doc,
    doc.paths['/x/{id}']!.get!.responses['200']!.content!['application/json']!.schema,
    value,
  );
};

describe('15.5 the OpenAPI conformance validator', () => {
  it('15.5: the banner the document used to advertise ({reason, text}) fails on the banner the API sends', async () => {
    const advertised = z.object({ banner: z.object({ reason: z.string(), text: z.string().optional() }) });
    const sent = { banner: { status: 'paused', reason: 'manual', message: 'Paused by you', since: 1 } };
    expect(await check(advertised, sent)).toEqual([
      '$.banner.status: sent, but not in the document',
      '$.banner.message: sent, but not in the document',
      '$.banner.since: sent, but not in the document',
    ]);
  });

  it('15.5: a .passthrough() schema documents nothing: every field it lets through is drift', async () => {
    expect(await check(z.object({}).passthrough(), { ok: true })).toEqual([
      '$.ok: sent, but not in the document',
    ]);
  });

  it('15.5: a missing required field, a wrong type and a status outside its enum are reported', async () => {
    const s = z.object({ id: z.string(), n: z.number(), status: z.enum(['active', 'paused']) }).openapi('S');
    expect(await check(s, { n: 'one', status: 'asleep' })).toEqual([
      '$.id: required, missing',
      '$.n: string where the document says number',
      '$.status: "asleep" is not one of ["active","paused"]',
    ]);
    expect(await check(s, { id: 'a', n: 1, status: 'active' })).toEqual([]);
  });

  it('15.5: an extended schema (allOf of a base and its extension) is one closed object', async () => {
    const base = z.object({ id: z.string() }).openapi('Base');
    const extended = base.extend({ extra: z.number() }).openapi('Extended');
    expect(await check(extended, { id: 'a', extra: 1 })).toEqual([]);
    expect(await check(extended, { id: 'a', extra: 1, more: true })).toEqual([
      '$.more: sent, but not in the document',
    ]);
  });

  it('15.5: records, tuples, nullable fields and unions validate as documented', async () => {
    const s = z.object({
      headers: z.record(z.string(), z.string()),
      pairs: z.array(z.tuple([z.string(), z.string()])),
      maybe: z.string().nullable(),
      kind: z.discriminatedUnion('k', [
        z.object({ k: z.literal('a') }),
        z.object({ k: z.literal('b'), n: z.number() }),
      ]),
    });
    expect(
      await check(s, { headers: { a: 'b' }, pairs: [['a', 'b']], maybe: null, kind: { k: 'b', n: 1 } }),
    ).toEqual([]);
    const bad = await check(s, {
      headers: { a: 1 },
      pairs: [['a', 'b', 'c']],
      maybe: 2,
      kind: { k: 'a', n: 1 },
    });
    expect(bad).toHaveLength(4);
  });

  it('15.5: a literal path segment wins over a parameter when matching a request to its operation', async () => {
    const doc = await docWith(z.object({}));
    expect(operationOf(doc, 'GET', '/x/recent')).toBe('/x/recent');
    expect(operationOf(doc, 'GET', '/x/abc?limit=1')).toBe('/x/{id}');
    expect(operationOf(doc, 'POST', '/x/abc')).toBeUndefined();
  });
});
