import { serve } from '@hono/node-server';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { createHash, timingSafeEqual } from 'node:crypto';
import { ConfigError, type Config } from '../config.js';
import { AesGcmCodec } from '../temporal/codec.js';
import { problem } from './problem.js';

// Issue 13.2: the Temporal Web UI's remote codec. Whoever may call it reads every payload
// in clear, so it is not part of the tenant API: it has its own listener (loopback by
// default), needs a credential, checks Origin itself and bounds what it reads.

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

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Constant-time: the comparison leaks neither the token nor how much of it matched. */
function tokenMatches(given: string | undefined, expected: Buffer): boolean {
  return given !== undefined && timingSafeEqual(digest(given), expected);
}

export interface CodecAppOptions {
  codec: PayloadCodec;
  token: string;
  /** Browser origins (the Web UI) allowed to call; a request from any other is refused. */
  origins: string[];
  maxBodyBytes: number;
}

/**
 * The credential travels as `Authorization: Bearer <token>` (the Temporal CLI's
 * `--codec-auth`, a proxy) or as the first path segment, `/<token>/decode`: the Temporal
 * dev server's UI can be given only an endpoint URL (it sends neither an access token nor
 * cookies), and the codec protocol looks only at the last path segment.
 */
export function codecApp(opts: CodecAppOptions) {
  const expected = digest(opts.token);
  const allowed = new Set(opts.origins);
  const app = new Hono();

  // Server-side Origin check: CORS headers only stop a browser from reading the answer,
  // not the request from being made.
  app.use('*', async (c, next) => {
    const origin = c.req.header('origin');
    if (origin !== undefined && !allowed.has(origin))
      return problem(
        c,
        403,
        'origin_not_allowed',
        'This origin may not call the codec',
        `Origin ${origin} is not in HERALD_CODEC_CORS_ORIGINS`,
      );
    await next();
  });
  app.use(
    '*',
    cors({
      origin: [...allowed],
      allowHeaders: ['content-type', 'x-namespace', 'authorization'],
      allowMethods: ['POST'],
      maxAge: 600,
    }),
  );

  const unauthorized = (c: Context) => {
    c.header('www-authenticate', 'Bearer realm="herald-codec"');
    return problem(
      c,
      401,
      'codec_unauthorized',
      'The codec needs its token',
      'Send Authorization: Bearer <HERALD_CODEC_TOKEN>, or use the endpoint URL that contains it',
    );
  };

  const handle = (op: 'encode' | 'decode') => async (c: Context) => {
    let body: { payloads?: JsonPayload[] };
    try {
      body = await c.req.json();
    } catch {
      return problem(c, 400, 'malformed_json', 'The request body is not valid JSON');
    }
    if (!body || !Array.isArray(body.payloads))
      return problem(c, 400, 'validation_failed', 'Send {"payloads": [...]}');
    try {
      const out = await opts.codec[op](body.payloads.map(fromJson));
      return c.json({ payloads: out.map(toJson) });
    } catch {
      // Tampered data or a key this process does not hold; the reason stays in the server.
      return problem(c, 422, 'codec_failed', `The payloads could not be ${op}d`);
    }
  };

  const limit = bodyLimit({
    maxSize: opts.maxBodyBytes,
    onError: (c) =>
      problem(
        c,
        413,
        'payload_too_large',
        'The request body is too large',
        `At most ${opts.maxBodyBytes} bytes (HERALD_CODEC_MAX_BODY_BYTES)`,
      ),
  });

  for (const op of ['encode', 'decode'] as const) {
    app.post(
      `/${op}`,
      async (c, next) => {
        const auth = c.req.header('authorization');
        const bearer = auth?.startsWith('Bearer ') ? auth.slice('Bearer '.length).trim() : undefined;
        if (!tokenMatches(bearer, expected)) return unauthorized(c);
        await next();
      },
      limit,
      handle(op),
    );
    app.post(
      `/:token/${op}`,
      async (c, next) => {
        if (!tokenMatches(c.req.param('token'), expected)) return unauthorized(c);
        await next();
      },
      limit,
      handle(op),
    );
  }
  app.notFound((c) => problem(c, 404, 'not_found', 'No such codec route', 'POST /encode or /decode'));
  return app;
}

/** Where the UI (a browser on this machine) reaches a listener bound to `host`. */
export function codecEndpointUrl(config: Config, token: string): string {
  const h = config.HERALD_CODEC_HOST;
  const host = h === '0.0.0.0' ? '127.0.0.1' : h === '::' ? '[::1]' : h.includes(':') ? `[${h}]` : h;
  return `http://${host}:${config.HERALD_CODEC_PORT}/${token}`;
}

/**
 * Starts the codec listener when HERALD_CODEC_ENDPOINT is on; the codec passes plaintext
 * through decode, since echoing what was sent in clear reveals nothing and the UI sends
 * payloads Herald never encoded (e.g. from other namespaces' workers).
 */
export function startCodecServer(config: Config, extraOrigins: string[] = []) {
  if (!config.HERALD_CODEC_ENDPOINT) return undefined;
  if (config.HERALD_CODEC_KEYS.length === 0)
    throw new ConfigError(
      'HERALD_CODEC_ENDPOINT=true needs HERALD_CODEC_KEYS: there is nothing to decode without them',
    );
  if (!config.HERALD_CODEC_TOKEN)
    throw new ConfigError(
      'HERALD_CODEC_ENDPOINT=true needs HERALD_CODEC_TOKEN (at least 32 characters): the codec decrypts for whoever calls it',
    );
  const app = codecApp({
    codec: new AesGcmCodec(config.HERALD_CODEC_KEYS, { acceptPlaintext: true }),
    token: config.HERALD_CODEC_TOKEN,
    origins: [...new Set([...config.HERALD_CODEC_CORS_ORIGINS, ...extraOrigins])],
    maxBodyBytes: config.HERALD_CODEC_MAX_BODY_BYTES,
  });
  const server = serve({
    fetch: app.fetch,
    hostname: config.HERALD_CODEC_HOST,
    port: config.HERALD_CODEC_PORT,
  });
  return {
    server,
    endpoint: codecEndpointUrl(config, config.HERALD_CODEC_TOKEN),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
