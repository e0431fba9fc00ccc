/**
 * Issue 15: checks real responses against the OpenAPI document Herald publishes, as a client
 * generated from it would read them. Objects are closed: a property the document does not
 * name is drift (a `.passthrough()` schema, documenting nothing, accepts no property at all),
 * as is a status with a JSON body the operation does not document.
 */
type Schema = Record<string, unknown> & {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema | false;
  prefixItems?: Schema[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  nullable?: boolean;
};

export interface OpenApiDoc {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: Schema }> }> }>
  >;
  components?: { schemas?: Record<string, Schema> };
}

const typeOf = (v: unknown) =>
  v === null
    ? 'null'
    : Array.isArray(v)
      ? 'array'
      : typeof v === 'number' && Number.isInteger(v)
        ? 'integer'
        : typeof v;

/**
 * Whether extra properties are described: a record's value schema is; `true` or `{}` (what
 * `.passthrough()` becomes) allows anything and documents nothing, so it counts as drift.
 */
const documents = (extra: Schema['additionalProperties']): extra is Schema =>
  typeof extra === 'object' && extra !== null && Object.keys(extra).length > 0;

const resolve = (doc: OpenApiDoc, s: Schema): Schema =>
  s.$ref ? resolve(doc, doc.components?.schemas?.[s.$ref.replace('#/components/schemas/', '')] ?? {}) : s;

function merged(doc: OpenApiDoc, schema: Schema): Schema {
  const { allOf, ...own } = schema;
  const out: Schema = { ...own, properties: { ...own.properties }, required: [...(own.required ?? [])] };
  for (const part of allOf ?? []) {
    const r = resolve(doc, part);
    const flat = r.allOf ? merged(doc, r) : r;
    Object.assign(out.properties!, flat.properties);
    out.required!.push(...(flat.required ?? []));
    out.type ??= flat.type;
    if (flat.additionalProperties !== undefined) out.additionalProperties ??= flat.additionalProperties;
  }
  return out;
}

/** Problems found validating `value` against `schema` (empty: it conforms). */
export function validate(doc: OpenApiDoc, schema: Schema, value: unknown, at = '$'): string[] {
  if (schema.$ref) {
    const name = schema.$ref.replace('#/components/schemas/', '');
    const target = doc.components?.schemas?.[name];
    if (!target) return [`${at}: unresolved ${schema.$ref}`];
    return validate(doc, target, value, at);
  }
  // An extended schema is `allOf: [base, extension]`: one object, closed over both.
  if (schema.allOf) return validate(doc, merged(doc, schema), value, at);
  const errs: string[] = [];
  if (schema.nullable && value === null) return [];
  for (const alts of [schema.anyOf, schema.oneOf]) {
    if (!alts) continue;
    const results = alts.map((s) => validate(doc, s, value, at));
    if (!results.some((r) => r.length === 0))
      errs.push(
        `${at}: matches none of ${alts.length} alternatives (${results.map((r) => r[0]).join(' | ')})`,
      );
  }
  if ('const' in schema && JSON.stringify(schema.const) !== JSON.stringify(value))
    errs.push(`${at}: ${JSON.stringify(value)} is not ${JSON.stringify(schema.const)}`);
  if (schema.enum && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value)))
    errs.push(`${at}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`);
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    const t = typeOf(value);
    if (!types.some((want) => want === t || (want === 'number' && t === 'integer')))
      return [...errs, `${at}: ${t} where the document says ${types.join('|')}`];
  }
  if (
    typeOf(value) === 'object' &&
    (schema.type === 'object' || schema.properties || schema.additionalProperties !== undefined)
  ) {
    const obj = value as Record<string, unknown>;
    for (const k of schema.required ?? []) if (!(k in obj)) errs.push(`${at}.${k}: required, missing`);
    for (const [k, v] of Object.entries(obj)) {
      const prop = schema.properties?.[k];
      if (prop) errs.push(...validate(doc, prop, v, `${at}.${k}`));
      else if (documents(schema.additionalProperties))
        errs.push(...validate(doc, schema.additionalProperties, v, `${at}.${k}`));
      else errs.push(`${at}.${k}: sent, but not in the document`);
    }
  }
  if (Array.isArray(value)) {
    value.forEach((v, i) => {
      // A tuple is closed too: an element past its prefixItems is drift unless `items` says more.
      const s = schema.prefixItems ? (schema.prefixItems[i] ?? schema.items ?? false) : schema.items;
      if (s === false) errs.push(`${at}[${i}]: beyond the tuple's length`);
      else if (s) errs.push(...validate(doc, s, v, `${at}[${i}]`));
    });
  }
  return errs;
}

/** The documented operation a concrete request path belongs to, e.g. `/v1/endpoints/{id}`. */
export function operationOf(doc: OpenApiDoc, method: string, path: string): string | undefined {
  const pathname = path.split('?')[0]!;
  const m = method.toLowerCase();
  // Literal segments beat parameters (`/deliveries/recent` is not `/deliveries/{id}`).
  const candidates = Object.keys(doc.paths)
    .filter((p) => doc.paths[p]![m])
    .filter((p) => {
      const re = new RegExp(`^${p.replace(/\{[^}]+\}/g, '[^/]+')}$`);
      return re.test(pathname);
    })
    .sort((a, b) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0));
  return candidates[0];
}

/** Every (operation, status) whose documented answer is a JSON body. */
export function jsonResponses(doc: OpenApiDoc): string[] {
  const out: string[] = [];
  for (const [p, ops] of Object.entries(doc.paths))
    for (const [m, op] of Object.entries(ops))
      for (const [status, r] of Object.entries(op.responses))
        if (r.content?.['application/json']) out.push(`${m.toUpperCase()} ${p} ${status}`);
  return out.sort();
}
