import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpSender } from '../../../src/activities/http-sender.js';
import { PinnedDispatchers } from '../../../src/activities/pinned-dispatcher.js';
import { parseCidrList } from '../../../src/policy/address.js';
import type { SendRequest } from '../../../src/shared/delivery-types.js';
import { generateSecret } from '../../../src/signing/standard-webhooks.js';
import { TransformSandbox } from '../../../src/transform/sandbox.js';
import type { Transformer } from '../../../src/transform/send.js';
import { Receiver } from '../../helpers/receiver.js';

const secret = generateSecret();
const payload = { invoiceId: 'in_1', amount: 4200, card: '4242424242424242' };
const ORIGINAL = JSON.stringify({ type: 'invoice.paid', timestamp: '2026-01-01T00:00:00Z', data: payload });

describe('R-RH-TRANSFORM: the send path applies the transformation before signing', () => {
  const receiver = new Receiver();
  const dispatchers = new PinnedDispatchers();
  const sandbox = new TransformSandbox({ processes: 2, timeoutMs: 500 });
  let base = '';
  beforeAll(async () => {
    base = await receiver.start();
  });
  afterAll(async () => {
    await Promise.all([receiver.stop(), dispatchers.close(), sandbox.close()]);
  });

  const sender = (transformer: Transformer | undefined) =>
    createHttpSender({
      dispatchers,
      allowAddresses: parseCidrList(['127.0.0.1/32']),
      allowHttpHosts: ['127.0.0.1'],
      now: () => new Date(),
      transformer,
    });
  const request = (
    path: string,
    transformation?: string,
    extra: Partial<SendRequest['target']> = {},
  ): SendRequest => ({
    deliveryId: `dl_${path.slice(1)}`,
    attempt: 1,
    event: { id: 'evt_1', type: 'invoice.paid', occurredAt: '2026-01-01T00:00:00Z', body: ORIGINAL },
    target: { url: `${base}${path}`, secrets: [secret], transformation, ...extra },
    timeoutSeconds: 2,
    deliveryIdHeader: 'Webhook-Delivery-Id',
  });
  const at = (path: string) => receiver.requests.filter((r) => r.path === path);

  it('a mapping changes the body, method and headers, and the signature covers the new body', async () => {
    const r = await sender(sandbox)(
      request(
        '/mapped',
        '{ "body": { "invoice": payload.invoiceId, "cents": payload.amount }, "method": "PUT", "headers": { "x-kind": type } }',
      ),
    );
    expect(r).toMatchObject({ httpStatus: 200 });
    const [got] = at('/mapped');
    expect(got).toBeDefined();
    expect(got!.method).toBe('PUT');
    expect(JSON.parse(got!.body)).toEqual({ invoice: 'in_1', cents: 4200 });
    expect(got!.headers['x-kind']).toBe('invoice.paid');
    expect(got!.headers['content-type']).toBe('application/json');
    expect(got!.headers['webhook-delivery-id']).toBe('dl_mapped:1');
    expect(() => new Webhook(secret).verify(got!.body, got!.headers as Record<string, string>)).not.toThrow();
  });

  it.each([
    ['throws', '$error("nope")'],
    ['runs forever', '( $f := function(){ $f() }; $f() )'],
    ['returns nothing', 'payload.missing'],
  ])(
    'a transformation that %s fails the attempt with transformation_failed; nothing is sent',
    async (_n, expr) => {
      const path = `/fail-${receiver.requests.length}-${Math.random().toString(36).slice(2, 6)}`;
      const r = await sender(sandbox)(request(path, expr));
      expect(r).toMatchObject({ code: 'transformation_failed', notSent: true, detail: expect.any(String) });
      expect(r.httpStatus).toBeUndefined();
      expect(at(path)).toHaveLength(0);
      expect(receiver.requests.some((q) => q.body.includes('4242424242424242'))).toBe(false);
    },
  );

  it('a worker without a sandbox fails the attempt rather than send the original', async () => {
    const r = await sender(undefined)(request('/no-sandbox', 'payload'));
    expect(r).toMatchObject({ code: 'transformation_failed', notSent: true });
    expect(at('/no-sandbox')).toHaveLength(0);
  });

  it('every evaluator busy is a deferral, not an attempt (R-RH-DEFER)', async () => {
    const busy: Transformer = { transform: async () => ({ ok: false, busy: true, reason: 'busy' }) };
    const r = await sender(busy)(request('/busy', 'payload'));
    expect(r).toMatchObject({ notSent: true, deferral: { code: 'transformation_busy' } });
    expect(r.code).toBeUndefined();
    expect(at('/busy')).toHaveLength(0);
  });

  it('without a transformation the body is the event body, unchanged', async () => {
    await sender(sandbox)(request('/plain'));
    expect(at('/plain')[0]!.body).toBe(ORIGINAL);
  });

  it('R-RH-INBOUND: a forward with a transformation reads the received headers and replaces body and content-type', async () => {
    const r = await sender(sandbox)(
      request('/forward', '{ "body": { "n": payload.amount, "via": headers."x-sender" } }', {
        secrets: [],
        forward: {
          sourceId: 'src_x',
          destinationId: 'dst_x',
          requestId: 'req_1',
          receivedAt: '2026-01-01T00:00:00Z',
          headers: [
            ['Content-Type', 'text/plain'],
            ['X-Sender', 'acme'],
          ],
          bodyEncoding: 'utf8',
        },
      }),
    );
    expect(r.httpStatus).toBe(200);
    const [got] = at('/forward');
    expect(JSON.parse(got!.body)).toEqual({ n: 4200, via: 'acme' });
    expect(got!.headers['content-type']).toBe('application/json');
    expect(got!.headers['x-sender']).toBe('acme');
  });
});
