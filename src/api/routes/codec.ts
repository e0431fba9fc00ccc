import type { Payload, PayloadCodec } from '@temporalio/common';
import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { fail } from '../problem.js';

interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

const b64 = (u?: Uint8Array | null) => Buffer.from(u ?? []).toString('base64');
const unb64 = (s?: string) => new Uint8Array(Buffer.from(s ?? '', 'base64'));

function fromJson(p: JsonPayload): Payload {
  return {
    metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, unb64(v)])),
    data: unb64(p.data),
  };
}

function toJson(p: Payload): JsonPayload {
  return {
    metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, b64(v)])),
    data: b64(p.data),
  };
}

/**
 * The Temporal Web UI's remote codec endpoint: operators who can reach it read payloads
 * in clear, while history itself stays encrypted. Only the configured UI origins may call
 * it from a browser; keep it on the operators' network.
 */
export function codecRouter(codec: PayloadCodec, origins: string[]) {
  const app = new Hono();
  app.use(
    '*',
    cors({ origin: origins, allowHeaders: ['content-type', 'x-namespace'], allowMethods: ['POST'] }),
  );
  for (const op of ['encode', 'decode'] as const) {
    app.post(`/${op}`, async (c) => {
      let body: { payloads?: JsonPayload[] };
      try {
        body = await c.req.json();
      } catch {
        fail(400, 'malformed_json', 'The request body is not valid JSON');
      }
      if (!Array.isArray(body.payloads)) fail(400, 'validation_failed', 'Send {"payloads": [...]}');
      const out = await codec[op](body.payloads.map(fromJson));
      return c.json({ payloads: out.map(toJson) });
    });
  }
  return app;
}
