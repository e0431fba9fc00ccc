import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpSender } from '../../src/activities/http-sender.js';
import { PinnedDispatchers } from '../../src/activities/pinned-dispatcher.js';
import { parseCidrList } from '../../src/policy/address.js';
import type { SendRequest, SendResult } from '../../src/shared/delivery-types.js';
import { generateSecret } from '../../src/signing/standard-webhooks.js';
import { Receiver } from '../helpers/receiver.js';

// Issue 14.12, R-RESP: the attempt log keeps at most 512 bytes of the response. Checked
// through the real sender against a loopback receiver answering with exact bytes, since
// what matters is what lands in SendResult (and from there in the attempt log).
const bodies = new Map<string, Buffer>();

describe('14.12 R-RESP: the response snippet is at most 512 bytes, never a split character', () => {
  const receiver = new Receiver((req, _i, res) => {
    const b = bodies.get(req.path) ?? Buffer.alloc(0);
    res.writeHead(500, { 'content-type': 'application/octet-stream' }).end(b);
  });
  const dispatchers = new PinnedDispatchers();
  let base = '';
  beforeAll(async () => {
    base = await receiver.start();
  });
  afterAll(async () => {
    await Promise.all([receiver.stop(), dispatchers.close()]);
  });

  const send = createHttpSender({
    dispatchers,
    allowAddresses: parseCidrList(['127.0.0.1/32']),
    allowHttpHosts: ['127.0.0.1'],
    now: () => new Date(),
  });
  let n = 0;
  async function answer(body: Buffer | string): Promise<SendResult> {
    const path = `/r${n++}`;
    bodies.set(path, Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'));
    const req: SendRequest = {
      deliveryId: `dl_${n}`,
      attempt: 1,
      event: { id: 'evt_1', type: 'x.y', occurredAt: '2026-01-01T00:00:00Z', body: '{}' },
      target: { url: `${base}${path}`, secrets: [generateSecret()] },
      timeoutSeconds: 5,
      deliveryIdHeader: 'Webhook-Delivery-Id',
    };
    const r = await send(req);
    expect(r.httpStatus).toBe(500);
    return r;
  }
  const bytes = (s: string | undefined) => Buffer.byteLength(s ?? '', 'utf8');

  it('14.12 R-RESP: "a" + "ё"×400 keeps 511 bytes of text, ending in a whole "ё", no U+FFFD', async () => {
    const r = await answer('a' + 'ё'.repeat(400));
    expect(r.responseBody).toBe('a' + 'ё'.repeat(255));
    expect(bytes(r.responseBody)).toBe(511);
    expect(r.responseBody).not.toContain('\uFFFD');
    expect(r.responseBodyEncoding).toBeUndefined();
  });

  it('14.12 R-RESP: exactly 512 bytes (ASCII, or ending in a whole 2-byte character) are kept whole', async () => {
    expect((await answer('x'.repeat(512))).responseBody).toBe('x'.repeat(512));
    const r = await answer('x'.repeat(510) + 'ё');
    expect(r.responseBody).toBe('x'.repeat(510) + 'ё');
    expect(r.responseBodyEncoding).toBeUndefined();
    // One byte more and the snippet is the first 512.
    expect((await answer('y'.repeat(513))).responseBody).toBe('y'.repeat(512));
  });

  it('14.12 R-RESP: a 3-byte character straddling the limit (1 or 2 of its bytes inside) is left out', async () => {
    const one = await answer('ab' + '€'.repeat(200)); // 2 + 170×3 = 512: the 171st starts at byte 512
    expect(one.responseBody).toBe('ab' + '€'.repeat(170));
    const twoIn = await answer('a' + '€'.repeat(200)); // 1 + 170×3 = 511: 1 byte of the 171st inside
    expect(twoIn.responseBody).toBe('a' + '€'.repeat(170));
    const oneIn = await answer('€'.repeat(200)); // 170×3 = 510: 2 bytes of the 171st inside
    expect(oneIn.responseBody).toBe('€'.repeat(170));
    for (const r of [one, twoIn, oneIn]) {
      expect(bytes(r.responseBody)).toBeLessThanOrEqual(512);
      expect(r.responseBody).not.toContain('\uFFFD');
    }
  });

  it('14.12 R-RESP: a 4-byte character straddling the limit is left out; 128 whole ones fit exactly', async () => {
    expect((await answer('😀'.repeat(128))).responseBody).toBe('😀'.repeat(128));
    for (const prefix of ['a', 'ab', 'abc']) {
      const r = await answer(prefix + '😀'.repeat(200));
      expect(r.responseBody).toBe(prefix + '😀'.repeat(127));
      expect(r.responseBody).not.toContain('\uFFFD');
      expect(r.responseBodyEncoding).toBeUndefined();
    }
  });

  it('14.12 R-RESP: a body that is not UTF-8 is kept as base64 of at most 512 bytes, flagged', async () => {
    const binary = Buffer.alloc(2000);
    for (let i = 0; i < binary.length; i++) binary[i] = (i * 37 + 0x80) & 0xff;
    const r = await answer(binary);
    expect(r.responseBodyEncoding).toBe('base64');
    expect(Buffer.from(r.responseBody!, 'base64')).toEqual(binary.subarray(0, 512));

    // Short and invalid: a lone lead byte at the very end of the whole body.
    const short = await answer(Buffer.from([0x6f, 0x6b, 0xc3]));
    expect(short).toMatchObject({
      responseBodyEncoding: 'base64',
      responseBody: Buffer.from([0x6f, 0x6b, 0xc3]).toString('base64'),
    });

    // Latin-1 text, as some servers still send it.
    const latin1 = await answer(Buffer.from('Fehler: ungültig', 'latin1'));
    expect(latin1.responseBodyEncoding).toBe('base64');
    expect(Buffer.from(latin1.responseBody!, 'base64').toString('latin1')).toBe('Fehler: ungültig');
  });

  it('14.12 R-RESP: an empty body is an empty text snippet', async () => {
    const r = await answer(Buffer.alloc(0));
    expect(r.responseBody).toBe('');
    expect(r.responseBodyEncoding).toBeUndefined();
  });
});
