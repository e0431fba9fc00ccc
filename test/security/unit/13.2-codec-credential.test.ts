import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../src/api/app.js';
import { loadConfig } from '../../../src/config.js';
import { AesGcmCodec, generateCodecKey } from '../../../src/temporal/codec.js';
import { freePort } from '../../helpers/ports.js';

// Issue 13.2 (§4 Operators: secrets never appear in plaintext in workflow history, and
// the codec that reads them for the Web UI is not a way round that).

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const TOKEN = 'codec-token-for-tests-0123456789abcdef';
const UI = 'http://127.0.0.1:8233';
const b64 = (u?: Uint8Array | null) => Buffer.from(u ?? []).toString('base64');
const toJson = (p: Payload) => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, b64(v)])),
  data: b64(p.data),
});

describe('13.2 the Web UI codec needs a credential and lives on its own loopback listener (§4 operators)', () => {
  const key = generateCodecKey();
  let encrypted: ReturnType<typeof toJson>;
  let codecPort: number;
  let apiPort: number;
  let close: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    const [enc] = await new AesGcmCodec([key]).encode([
      defaultPayloadConverter.toPayload({ secrets: [SECRET] }),
    ]);
    encrypted = toJson(enc!);
    [codecPort, apiPort] = [await freePort(), await freePort()];
  });
  afterAll(async () => close?.());

  it('13.2: the tenant API no longer decrypts a payload for a bare POST to /codec/decode', async () => {
    // The setting `npm start` turns on.
    const config = loadConfig({
      HERALD_CODEC_KEYS: key,
      HERALD_CODEC_ENDPOINT: 'true',
      HERALD_CODEC_TOKEN: TOKEN,
    });
    const app = createApp({ client: {} as never, config });
    const res = await app.request('/codec/decode', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ payloads: [encrypted] }),
    });
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain(b64(Buffer.from(SECRET)).slice(0, 20));
  });

  it("13.2: by default the codec binds to loopback, on a port other than the API's", () => {
    const config = loadConfig({});
    expect((config as Record<string, unknown>).HERALD_CODEC_HOST).toBe('127.0.0.1');
    expect((config as Record<string, unknown>).HERALD_CODEC_PORT).not.toBe(config.HERALD_API_PORT);
  });

  it('13.2: the listener refuses a call without its token (401), with a foreign Origin (403) and an oversized body (413), all problem+json', async () => {
    const { startCodecServer } = await import('../../../src/api/codec-server.js');
    const config = loadConfig({
      HERALD_CODEC_KEYS: key,
      HERALD_CODEC_ENDPOINT: 'true',
      HERALD_CODEC_TOKEN: TOKEN,
      HERALD_CODEC_PORT: String(codecPort),
      HERALD_API_PORT: String(apiPort),
      HERALD_CODEC_MAX_BODY_BYTES: String(64 * 1024),
    });
    const started = startCodecServer(config);
    expect(started).toBeDefined();
    close = started!.close;
    const base = `http://127.0.0.1:${codecPort}`;
    const body = JSON.stringify({ payloads: [encrypted] });
    const post = (path: string, headers: Record<string, string> = {}, payload: string = body) =>
      fetch(`${base}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: payload,
      });
    const secretB64 = b64(Buffer.from(SECRET)).slice(0, 20);

    // No credential, a wrong one, a token in the wrong place: nothing decrypted.
    for (const res of [
      await post('/decode'),
      await post('/decode', { authorization: 'Bearer not-the-token-0123456789abcdefghij' }),
      await post('/not-the-token-0123456789abcdefghij/decode'),
    ]) {
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const text = await res.text();
      expect(JSON.parse(text).code).toBe('codec_unauthorized');
      expect(text).not.toContain(secretB64);
    }

    // The token, as a bearer (the Temporal CLI) or in the endpoint URL (the dev server's UI).
    for (const res of [
      await post('/decode', { authorization: `Bearer ${TOKEN}` }),
      await post(`/${TOKEN}/decode`, { origin: UI }),
    ]) {
      expect(res.status).toBe(200);
      const out = (await res.json()) as { payloads: Array<{ data: string }> };
      expect(JSON.parse(Buffer.from(out.payloads[0]!.data, 'base64').toString())).toEqual({
        secrets: [SECRET],
      });
    }

    // A page on another origin is refused by the server itself, token or not: CORS headers
    // alone would still let its request through.
    const foreign = await post(`/${TOKEN}/decode`, { origin: 'http://evil.test' });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const foreignText = await foreign.text();
    expect(JSON.parse(foreignText).code).toBe('origin_not_allowed');
    expect(foreignText).not.toContain(secretB64);

    // Bodies are bounded, whether announced by Content-Length or streamed in chunks.
    const big = JSON.stringify({ payloads: [{ data: 'A'.repeat(100 * 1024) }] });
    const announced = await post(`/${TOKEN}/decode`, {}, big);
    expect(announced.status).toBe(413);
    expect(JSON.parse(await announced.text()).code).toBe('payload_too_large');
    const chunks = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < 10; i++) c.enqueue(new TextEncoder().encode('A'.repeat(16 * 1024)));
        c.close();
      },
    });
    const streamed = await fetch(`${base}/${TOKEN}/decode`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: chunks,
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
  });

  it('13.2: the listener will not start without a token', async () => {
    const { startCodecServer } = await import('../../../src/api/codec-server.js');
    expect(() =>
      startCodecServer(loadConfig({ HERALD_CODEC_KEYS: key, HERALD_CODEC_ENDPOINT: 'true' })),
    ).toThrow(/HERALD_CODEC_TOKEN/);
  });
});
