// Issue 13.8, R-RH-INBOUND: a Standard Webhooks message sent again within its tolerance
// (a replay by whoever captured it, or the sender's own retry) is forwarded once. The
// repeat is answered 2xx naming the first request and its forwards, on any API process.
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../src/api/app.js';
import { newTenant, type TenantSession } from '../../helpers/api.js';
import { startDevWorker } from '../../helpers/dev-worker.js';
import { Receiver } from '../../helpers/receiver.js';

type Accepted = {
  requestId: string;
  forwards: Array<{ id: string; destinationId: string }>;
  duplicate?: boolean;
};

describe('13.8 R-RH-INBOUND: inbound replay of a Standard Webhooks message', () => {
  let w: Awaited<ReturnType<typeof startDevWorker>>;
  let app: ReturnType<typeof createApp>;
  let tenant: TenantSession;
  const dest = new Receiver();
  let destBase: string;
  let ingestPath: string;
  let sender: Webhook;

  beforeAll(async () => {
    [w, destBase] = await Promise.all([startDevWorker(), dest.start()]);
    app = createApp({ client: w.client, config: w.config });
    tenant = await newTenant(app, 'Replay Co');
    const res = await tenant.call('POST', '/v1/sources', {
      verification: { kind: 'standard_webhooks', toleranceSeconds: 3600 },
      destinations: [{ url: `${destBase}/a` }, { url: `${destBase}/b` }],
    });
    expect(res.status).toBe(201);
    const created = (await res.json()) as { source: { ingestUrl: string }; secret: string };
    ingestPath = new URL(created.source.ingestUrl).pathname;
    sender = new Webhook(created.secret);
  });
  afterAll(async () => {
    await w?.stop();
    await dest.stop();
  });

  const signed = (id: string, at: Date, body: string) => ({
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': sender.sign(id, at, body),
  });
  const post = (to: ReturnType<typeof createApp>, headers: Record<string, string>, body: string) =>
    to.request(ingestPath, { method: 'POST', headers, body });
  const received = (id: string) => dest.requests.filter((r) => r.headers['webhook-id'] === id);
  /** Long enough for a wrongly started second forward to reach the destination. */
  const settle = () => new Promise((r) => setTimeout(r, 2000));

  it('13.8 R-RH-INBOUND: the same signed request sent again, a re-signed retry 30 min later and the same message on another API process are each answered 200 naming the first request, and forwarded once', async () => {
    const body = '{"type":"payment.succeeded","id":"pay_replay"}';
    const headers = signed('msg_replay_1', new Date(), body);
    const first = await post(app, headers, body);
    expect(first.status).toBe(202);
    const original = (await first.json()) as Accepted;
    expect(original.forwards).toHaveLength(2);
    await expect.poll(() => received('msg_replay_1').length, { timeout: 30_000 }).toBe(2);

    const expected = { requestId: original.requestId, forwards: original.forwards, duplicate: true };
    // A captured request, replayed byte for byte within the tolerance.
    const replay = await post(app, headers, body);
    expect(replay.status).toBe(200);
    expect(await replay.json()).toEqual(expected);
    // The same message signed again with an older timestamp, still within 3,600 s.
    const resigned = await post(app, signed('msg_replay_1', new Date(Date.now() - 30 * 60_000), body), body);
    expect(resigned.status).toBe(200);
    expect(await resigned.json()).toEqual(expected);
    // Another API process: its own caches, the same Temporal.
    const other = createApp({ client: w.client, config: w.config });
    const elsewhere = await post(other, headers, body);
    expect(elsewhere.status).toBe(200);
    expect(await elsewhere.json()).toEqual(expected);

    await settle();
    expect(received('msg_replay_1')).toHaveLength(2);
    expect(
      received('msg_replay_1')
        .map((r) => r.path)
        .sort(),
    ).toEqual(['/a', '/b']);
    // The forward log has the one request per destination.
    const ofRequest = async () =>
      (
        (await (await tenant.call('GET', '/v1/forwards')).json()) as { data: Array<{ requestId: string }> }
      ).data.filter((r) => r.requestId === original.requestId).length;
    await expect.poll(ofRequest, { timeout: 10_000, interval: 200 }).toBe(2);
    await settle();
    expect(await ofRequest()).toBe(2);
  });

  it('13.8 R-RH-INBOUND: concurrent copies of one message (direct or batched starts) name one request and are forwarded once; another webhook-id is a new request', async () => {
    const body = '{"type":"burst"}';
    const headers = signed('msg_replay_burst', new Date(), body);
    const answers = await Promise.all(Array.from({ length: 12 }, () => post(app, headers, body)));
    for (const a of answers) expect([200, 202]).toContain(a.status);
    const bodies = (await Promise.all(answers.map((a) => a.json()))) as Accepted[];
    expect(new Set(bodies.map((b) => b.requestId)).size).toBe(1);
    expect(new Set(bodies.map((b) => b.forwards.map((f) => f.id).join()))).toHaveProperty('size', 1);
    await expect.poll(() => received('msg_replay_burst').length, { timeout: 30_000 }).toBe(2);

    const fresh = await post(app, signed('msg_replay_new', new Date(), body), body);
    expect(fresh.status).toBe(202);
    expect(((await fresh.json()) as Accepted).requestId).not.toBe(bodies[0]!.requestId);
    await expect.poll(() => received('msg_replay_new').length, { timeout: 30_000 }).toBe(2);
    await settle();
    expect(received('msg_replay_burst')).toHaveLength(2);
  });
});
