import type { ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { newTenant, type TenantSession } from '../helpers/api.js';
import { startDevWorker } from '../helpers/dev-worker.js';
import { Receiver, type ReceivedRequest } from '../helpers/receiver.js';

/**
 * Issue 14.15 (R-STATUS "failed: never attempted because the endpoint cannot accept it:
 * ... endpoint unverified"; Railhook's FAILED "for example it is not verified"). With
 * `verification: "challenge"` Herald POSTs a signed `webhook.verification` challenge on
 * create and on every URL change; the receiver proves it controls the URL by answering
 * 2xx `{"challenge": "<the value>"}`. Until then deliveries end `failed`
 * (`endpoint_unverified`) with no request made. A real loopback receiver answers.
 */

type Json = Record<string, unknown>;
interface Verification {
  mode: string;
  status: string;
  verifiedAt?: number;
  lastError?: { code: string; httpStatus?: number };
}
interface EndpointView {
  endpointId: string;
  config: { url: string };
  verification?: Verification;
}
interface DeliveryView {
  status: string;
  attempts: Array<{ kind: string; code?: string; httpStatus?: number }>;
}

const isChallenge = (r: ReceivedRequest) => r.body.includes('"webhook.verification"');

/** Paths under /echo answer the challenge as documented; /plain answers `ok` to everything. */
function answer(req: ReceivedRequest, res: ServerResponse) {
  if (req.path.startsWith('/echo') && isChallenge(req)) {
    const { challenge } = JSON.parse(req.body) as { challenge: string };
    // A slow receiver: the first challenge is answered after deliveries were published.
    setTimeout(
      () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ challenge })),
      1500,
    );
    return;
  }
  res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
}

describe('14.15 R-RH-STATUS endpoint verification by challenge', () => {
  let w: Awaited<ReturnType<typeof startDevWorker>>;
  let t: TenantSession;
  let base: string;
  const receiver = new Receiver((req, _i, res) => answer(req, res));
  const at = (path: string) => receiver.requests.filter((r) => r.path === path);

  beforeAll(async () => {
    [w, base] = await Promise.all([startDevWorker(), receiver.start()]);
    t = await newTenant(createApp({ client: w.client, config: w.config }), '14.15');
  });
  afterAll(async () => {
    await w?.stop();
    await receiver.stop();
  });

  async function create(path: string, type: string, extra: Json = { verification: 'challenge' }) {
    const res = await t.call('POST', '/v1/endpoints', {
      url: `${base}${path}`,
      preset: 'railhook',
      eventTypes: [type],
      ...extra,
    });
    expect(res.status, await res.clone().text()).toBe(201);
    return (await res.json()) as { endpoint: EndpointView; secret: string };
  }
  const view = async (id: string) =>
    (await (await t.call('GET', `/v1/endpoints/${id}`)).json()) as EndpointView;
  const verificationOf = async (id: string, status: string) => {
    await expect
      .poll(async () => (await view(id)).verification?.status, { timeout: 20_000, interval: 200 })
      .toBe(status);
    return (await view(id)).verification!;
  };
  async function publish(type: string): Promise<string> {
    const res = await t.call('POST', '/v1/events', { type, payload: { n: 1 } });
    expect(res.status).toBe(202);
    const { deliveries } = (await res.json()) as { deliveries: Array<{ id: string }> };
    expect(deliveries).toHaveLength(1);
    return deliveries[0]!.id;
  }
  async function ended(id: string, status: string): Promise<DeliveryView> {
    let v: DeliveryView | undefined;
    await expect
      .poll(
        async () => {
          v = (await (await t.call('GET', `/v1/deliveries/${id}`)).json()) as DeliveryView;
          return v.status;
        },
        { timeout: 30_000, interval: 200 },
      )
      .toBe(status);
    return v!;
  }

  let echoed: { endpoint: EndpointView; secret: string };

  it('14.15 R-RH-STATUS: a receiver that echoes the challenge is verified, and an event published while the challenge was out is delivered after it', async () => {
    echoed = await create('/echo/a', 'vf.echo');
    expect(echoed.endpoint.verification).toEqual({ mode: 'challenge', status: 'pending' });
    // Published before the receiver answered: it waits, it does not fail.
    const id = await publish('vf.echo');
    const v = await verificationOf(echoed.endpoint.endpointId, 'verified');
    expect(v.verifiedAt).toEqual(expect.any(Number));
    expect(v.lastError).toBeUndefined();
    const d = await ended(id, 'succeeded');
    expect(d.attempts.filter((a) => a.kind === 'attempt').map((a) => a.httpStatus)).toEqual([200]);
    // It waited as a deferral (no attempt spent) while the challenge was out.
    expect(d.attempts.some((a) => a.kind === 'deferral' && a.code === 'endpoint_verifying')).toBe(true);
    const got = at('/echo/a');
    expect(got.map(isChallenge)).toEqual([true, false]);
    // The event reached the receiver only after it had answered the challenge.
    expect(got[1]!.at).toBeGreaterThanOrEqual(got[0]!.at + 1400);
  });

  it("14.15 R-RH-STATUS: the challenge is a Standard Webhooks request signed with the endpoint's secret (verified by the standardwebhooks package)", () => {
    const challenge = at('/echo/a').find(isChallenge)!;
    const verified = new Webhook(echoed.secret).verify(
      challenge.body,
      challenge.headers as Record<string, string>,
    );
    expect(verified).toMatchObject({
      type: 'webhook.verification',
      challenge: expect.stringMatching(/^[A-Za-z0-9_-]{24,}$/),
    });
    expect(() =>
      new Webhook(Buffer.alloc(32, 1).toString('base64')).verify(
        challenge.body,
        challenge.headers as Record<string, string>,
      ),
    ).toThrow();
  });

  it('14.15 R-RH-STATUS: a receiver that does not echo leaves the endpoint unverified; its deliveries end failed endpoint_unverified with no request made', async () => {
    const { endpoint } = await create('/plain/b', 'vf.plain');
    const v = await verificationOf(endpoint.endpointId, 'unverified');
    expect(v.lastError).toMatchObject({ code: 'challenge_mismatch', httpStatus: 200 });
    const id = await publish('vf.plain');
    const d = await ended(id, 'failed');
    expect(d.attempts.map((a) => [a.kind, a.code])).toEqual([['refused', 'endpoint_unverified']]);
    await new Promise((r) => setTimeout(r, 500));
    expect(at('/plain/b').map(isChallenge)).toEqual([true]);
  });

  it('14.15 R-RH-STATUS: a URL change verifies again; the new URL must answer before it gets anything', async () => {
    const { endpoint } = await create('/echo/c1', 'vf.move');
    await verificationOf(endpoint.endpointId, 'verified');
    const moved = await t.call('PATCH', `/v1/endpoints/${endpoint.endpointId}`, { url: `${base}/plain/c2` });
    expect(moved.status).toBe(200);
    expect(((await moved.json()) as EndpointView).verification).toMatchObject({ status: 'pending' });
    await verificationOf(endpoint.endpointId, 'unverified');
    expect(at('/plain/c2').map(isChallenge)).toEqual([true]);
    const failed = await ended(await publish('vf.move'), 'failed');
    expect(failed.attempts.map((a) => a.code)).toEqual(['endpoint_unverified']);
    expect(at('/plain/c2')).toHaveLength(1);
    // Back to a receiver that answers: verified again, and deliveries flow.
    await t.call('PATCH', `/v1/endpoints/${endpoint.endpointId}`, { url: `${base}/echo/c3` });
    await verificationOf(endpoint.endpointId, 'verified');
    await ended(await publish('vf.move'), 'succeeded');
    expect(at('/echo/c3').map(isChallenge)).toEqual([true, false]);
    expect(at('/echo/c1').map(isChallenge)).toEqual([true]);
  });

  it('14.15 R-RH-STATUS: POST /verify after fixing the receiver verifies it and answers with the outcome', async () => {
    const { endpoint } = await create('/fix/d', 'vf.fix');
    const id = endpoint.endpointId;
    await verificationOf(id, 'unverified');
    // Still broken: /verify says why not.
    const again = await t.call('POST', `/v1/endpoints/${id}/verify`);
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({
      verified: false,
      verification: { status: 'unverified', lastError: { code: 'challenge_mismatch', httpStatus: 200 } },
      result: { ok: false, httpStatus: 200, code: 'challenge_mismatch' },
    });
    // The tenant fixes the receiver: /fix paths now answer the challenge.
    receiver.respondWith((req, _i, res) => {
      if (req.path.startsWith('/fix') && isChallenge(req)) {
        const { challenge } = JSON.parse(req.body) as { challenge: string };
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ challenge, ok: true }));
      } else answer(req, res);
    });
    const fixed = await t.call('POST', `/v1/endpoints/${id}/verify`);
    expect(await fixed.json()).toMatchObject({
      verified: true,
      verification: { mode: 'challenge', status: 'verified', verifiedAt: expect.any(Number) },
      result: { ok: true, httpStatus: 200 },
    });
    await ended(await publish('vf.fix'), 'succeeded');
    expect(at('/fix/d').map(isChallenge)).toEqual([true, true, true, false]);
  });

  it('14.15 R-RH-STATUS: the option is validated (problem+json), shown as none by default, and /verify refuses an endpoint without it', async () => {
    const bad = await t.call('POST', '/v1/endpoints', {
      url: `${base}/x`,
      preset: 'railhook',
      verification: 'dns',
    });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await bad.json()).toMatchObject({ code: 'validation_failed', errors: [{ path: 'verification' }] });

    const { endpoint } = await create('/none/e', 'vf.none', {});
    expect(endpoint.verification).toEqual({ mode: 'none', status: 'not_required' });
    expect((await view(endpoint.endpointId)).verification).toEqual({ mode: 'none', status: 'not_required' });
    const refused = await t.call('POST', `/v1/endpoints/${endpoint.endpointId}/verify`);
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ code: 'verification_not_enabled' });
    const badPatch = await t.call('PATCH', `/v1/endpoints/${endpoint.endpointId}`, { verification: true });
    expect(badPatch.status).toBe(400);
    // Without the option nothing is challenged and deliveries go out as before.
    await ended(await publish('vf.none'), 'succeeded');
    expect(at('/none/e').map(isChallenge)).toEqual([false]);

    const doc = (await (await t.call('GET', '/openapi.json')).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toContain('/v1/endpoints/{id}/verify');
  });
});
