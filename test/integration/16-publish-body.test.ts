import { request } from 'node:http';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TenantSession } from '../helpers/api.js';
import { listeningApp, type ListeningApp } from '../helpers/listening-app.js';

/**
 * Issue 16: the body limit judges a declared Content-Length from the headers, and a publish
 * reads its body once (src/api/body-limit.ts, events.handlers.ts), so @hono/node-server reads
 * it straight from Node's request rather than through a web Request. What a publisher sends
 * must arrive as it was sent, and a bad body must get the same problem as before. Against a
 * real listening server, with a client that sends the body in small pieces, cutting
 * multi-byte characters in two.
 */

interface Answer {
  status: number;
  contentType: string | undefined;
  json: Record<string, unknown>;
}

function postInPieces(port: number, path: string, headers: Record<string, string>, body: Buffer) {
  return new Promise<Answer>((resolve, reject) => {
    const req = request({
      host: '127.0.0.1',
      port,
      path,
      method: 'POST',
      headers: { ...headers, 'content-length': String(body.length) },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          contentType: res.headers['content-type'],
          json: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
        }),
      );
    });
    void (async () => {
      // 7 bytes at a time: every multi-byte character below is cut somewhere.
      for (let i = 0; i < body.length; i += 7) {
        req.write(body.subarray(i, i + 7));
        if (i % 700 === 0) await delay(1);
      }
      req.end();
    })().catch(reject);
  });
}

describe('16: a publish body with a declared length (real server)', () => {
  let h: ListeningApp;
  let port: number;
  let t: TenantSession;

  beforeAll(async () => {
    h = await listeningApp('Publish Body Co');
    ({ port, tenant: t } = h);
  });

  afterAll(async () => {
    await h?.stop();
  });

  const headers = () => ({ authorization: `Bearer ${t.apiKey}`, 'content-type': 'application/json' });

  it('R-IDEMP: the payload sent in pieces, multi-byte characters cut, is the payload the event keeps', async () => {
    const payload = {
      uk: 'Привіт, світе '.repeat(40),
      vi: 'Tiếng Việt có dấu '.repeat(40),
      emoji: '🙂🚀'.repeat(60),
      nested: { list: [1, 'два', { ba: 'ba' }] },
    };
    const id = `evt_piece_${Date.now()}`;
    const body = Buffer.from(JSON.stringify({ id, type: 'body.pieces', payload }));
    const res = await postInPieces(port, '/v1/events', headers(), body);
    expect(res.status, JSON.stringify(res.json).slice(0, 300)).toBe(202);
    expect(res.json).toMatchObject({ eventId: id, type: 'body.pieces' });

    const read = await h.app.request(`/v1/events/${id}`, { headers: headers() });
    expect(read.status).toBe(200);
    expect(((await read.json()) as { payload: unknown }).payload).toEqual(payload);
  });

  it('R-IDEMP: the same id published again with a declared length answers with the first publish', async () => {
    const id = `evt_dup_${Date.now()}`;
    const body = Buffer.from(JSON.stringify({ id, type: 'body.dup', payload: { n: 1 } }));
    const first = await postInPieces(port, '/v1/events', headers(), body);
    expect(first.status).toBe(202);
    await delay(20);
    const again = await postInPieces(port, '/v1/events', headers(), body);
    expect(again.status).toBe(202);
    // The record's time, not a second event's: the id was read from the body both times.
    expect(again.json).toEqual(first.json);
  });

  it('16: a body that is not JSON gets 400 malformed_json', async () => {
    const res = await postInPieces(port, '/v1/events', headers(), Buffer.from('{"type":"x", "payload": {'));
    expect(res.status).toBe(400);
    expect(res.contentType).toMatch(/^application\/problem\+json/);
    expect(res.json).toMatchObject({ status: 400, code: 'malformed_json' });
  });

  it('16: a body nested too deep gets 400 payload_too_deep, not a parse', async () => {
    const deep = `{"type":"x","payload":${'['.repeat(200)}${']'.repeat(200)}}`;
    const res = await postInPieces(port, '/v1/events', headers(), Buffer.from(deep));
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ status: 400, code: 'payload_too_deep' });
  });

  it('16: a body that breaks the event schema gets the validator problem, read from the same text', async () => {
    const res = await postInPieces(port, '/v1/events', headers(), Buffer.from('{"payload":{"a":1}}'));
    expect(res.status).toBe(400);
    expect(res.contentType).toMatch(/^application\/problem\+json/);
    expect(JSON.stringify(res.json)).toMatch(/type/);
  });
});
