import { Connection } from '@temporalio/client';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSecret } from '../../src/signing/standard-webhooks.js';
import type { TenantSession } from '../helpers/api.js';
import { Receiver } from '../helpers/receiver.js';
import { expectJson, stackInfo, stackTenant } from '../helpers/stack-api.js';

// Issue 19: a representative part of the integration suite, against Herald as it is deployed:
// the real Temporal server on PostgreSQL, two worker processes and an API process, all
// reached over the network (HTTP, gRPC) as an operator's would be.

type Delivery = { id: string; status: string; attemptCount: number; endpointId?: string };
type Published = { eventId: string; deliveries: Array<{ id: string; endpointId?: string }> };
type Endpoint = { endpointId: string; health: { status: string; reason?: string } };

const POLL = { timeout: 60_000, interval: 250 };

describe('19 Herald on the production-shaped stack (Temporal on PostgreSQL, 2 workers, API)', () => {
  const receiver = new Receiver();
  let base: string;
  let t: TenantSession;
  const sentTo = (path: string) => receiver.requests.filter((r) => r.path === path);
  const delivery = (id: string) => expectJson<Delivery>(t.call('GET', `/v1/deliveries/${id}`), 200);

  beforeAll(async () => {
    base = await receiver.start();
    t = await stackTenant('Stack Co');
  });
  afterAll(async () => {
    await receiver.stop();
  });

  it('19 R-SIGN: a published event is delivered once, signed, and its delivery reads succeeded', async () => {
    const secret = generateSecret();
    const published = await expectJson<Published>(
      t.call('POST', '/v1/events', {
        type: 'invoice.paid',
        payload: { amount: 42 },
        targets: [{ url: `${base}/signed`, secrets: [secret] }],
      }),
      202,
    );
    await expect.poll(() => sentTo('/signed').length, POLL).toBe(1);
    const got = sentTo('/signed')[0]!;
    const verified = new Webhook(secret).verify(got.body, got.headers as Record<string, string>);
    expect(verified).toMatchObject({ type: 'invoice.paid', data: { amount: 42 } });
    expect(got.headers['webhook-id']).toBe(published.eventId);
    const id = published.deliveries[0]!.id;
    await expect.poll(async () => (await delivery(id)).status, POLL).toBe('succeeded');
    expect((await delivery(id)).attemptCount).toBe(1);
  });

  it('19 R-RETRY R-RH-DLQ: failing attempts are retried, end as a dead letter, and a retry of it delivers', async () => {
    let flakyFixed = false;
    receiver.respondWith((r, _i, res) =>
      r.path === '/flaky' && !flakyFixed ? res.writeHead(500).end('down') : res.writeHead(200).end('ok'),
    );
    const { endpoint } = await expectJson<{ endpoint: Endpoint }>(
      t.call('POST', '/v1/endpoints', {
        url: `${base}/flaky`,
        preset: 'railhook',
        eventTypes: ['order.*'],
        policy: { maxAttempts: 2, retryDelays: [1], timeoutSeconds: 5 },
      }),
      201,
    );
    const published = await expectJson<Published>(
      t.call('POST', '/v1/events', { type: 'order.created', payload: { n: 1 } }),
      202,
    );
    const id = published.deliveries.find((d) => d.endpointId === endpoint.endpointId)!.id;
    await expect.poll(async () => (await delivery(id)).status, POLL).toBe('exhausted');
    expect(sentTo('/flaky')).toHaveLength(2);
    await expect
      .poll(async () => {
        const r = await expectJson<{ data: Array<{ id: string }> }>(
          t.call('GET', `/v1/dead-letters?endpointId=${endpoint.endpointId}`),
          200,
        );
        return r.data.map((d) => d.id);
      }, POLL)
      .toEqual([id]);

    flakyFixed = true;
    expect((await t.call('POST', `/v1/dead-letters/${id}/retry`)).status).toBeLessThan(300);
    await expect.poll(async () => (await delivery(id)).status, POLL).toBe('succeeded');
    expect(sentTo('/flaky')).toHaveLength(3);
    // Same webhook-id on every attempt, the retry included.
    expect(new Set(sentTo('/flaky').map((r) => r.headers['webhook-id']))).toEqual(
      new Set([published.eventId]),
    );
  });

  it('19 R-REPLAY: replaying a finished delivery sends the same webhook-id and body again', async () => {
    const published = await expectJson<Published>(
      t.call('POST', '/v1/events', {
        type: 'user.created',
        payload: { user: 'ada' },
        targets: [{ url: `${base}/replayed`, secrets: [generateSecret()] }],
      }),
      202,
    );
    const id = published.deliveries[0]!.id;
    await expect.poll(async () => (await delivery(id)).status, POLL).toBe('succeeded');
    expect((await t.call('POST', `/v1/replay/deliveries/${id}`)).status).toBe(202);
    await expect.poll(() => sentTo('/replayed').length, POLL).toBe(2);
    const [first, again] = sentTo('/replayed');
    expect(again!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(again!.body).toBe(first!.body);
  });

  it('19 R-SMENGO-HEALTH: a 410 disables a standard endpoint at once, its delivery is a dead letter, resume re-enables it', async () => {
    receiver.respondWith((r, _i, res) =>
      r.path === '/gone' ? res.writeHead(410).end() : res.writeHead(200).end(),
    );
    const { endpoint } = await expectJson<{ endpoint: Endpoint }>(
      t.call('POST', '/v1/endpoints', { url: `${base}/gone`, preset: 'standard', eventTypes: ['gone.*'] }),
      201,
    );
    const view = () => expectJson<Endpoint>(t.call('GET', `/v1/endpoints/${endpoint.endpointId}`), 200);
    expect((await view()).health.status).toBe('active');
    const published = await expectJson<Published>(
      t.call('POST', '/v1/events', { type: 'gone.now', payload: {} }),
      202,
    );
    const id = published.deliveries.find((d) => d.endpointId === endpoint.endpointId)!.id;
    await expect
      .poll(async () => (await view()).health, POLL)
      .toMatchObject({ status: 'disabled', reason: 'gone' });
    await expect.poll(async () => (await delivery(id)).status, POLL).toBe('exhausted');
    expect(sentTo('/gone')).toHaveLength(1);

    receiver.respondWith((_r, _i, res) => res.writeHead(200).end());
    const resumed = await t.call('POST', `/v1/endpoints/${endpoint.endpointId}/resume`);
    expect(resumed.status).toBe(200);
    await expect.poll(async () => (await view()).health.status, POLL).toBe('active');
  });

  it('19 R-RH-INBOUND: a request to an ingest URL is forwarded byte for byte to its destination', async () => {
    const { source } = await expectJson<{ source: { sourceId: string; ingestUrl: string } }>(
      t.call('POST', '/v1/sources', { name: 'stack-in', destinations: [{ url: `${base}/inbound` }] }),
      201,
    );
    const body = JSON.stringify({ hello: 'from a sender' });
    const ingest = new URL(source.ingestUrl);
    const res = await fetch(`${stackInfo().apiUrl}${ingest.pathname}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-sender-event': 'ping' },
      body,
    });
    expect(res.status).toBe(202);
    const accepted = (await res.json()) as { forwards: Array<{ id: string }> };
    await expect.poll(() => sentTo('/inbound').length, POLL).toBe(1);
    const got = sentTo('/inbound')[0]!;
    expect(got.body).toBe(body);
    expect(got.headers['x-sender-event']).toBe('ping');
    const fwd = accepted.forwards[0]!.id;
    await expect
      .poll(
        async () => (await expectJson<{ status: string }>(t.call('GET', `/v1/forwards/${fwd}`), 200)).status,
        POLL,
      )
      .toBe('succeeded');
  });

  it("19 13.2: history on the server is ciphertext; the Web UI's codec decodes it only with the credential", async () => {
    const s = stackInfo();
    const published = await expectJson<Published>(
      t.call('POST', '/v1/events', {
        type: 'secret.thing',
        payload: { marker: 'plain-marker-19' },
        targets: [{ url: `${base}/codec`, secrets: [generateSecret()] }],
      }),
      202,
    );
    const connection = await Connection.connect({ address: s.temporalAddress });
    try {
      const history = await connection.workflowService.getWorkflowExecutionHistory({
        namespace: s.namespace,
        execution: { workflowId: published.deliveries[0]!.id },
      });
      const input =
        history.history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads ?? [];
      expect(input.length).toBeGreaterThan(0);
      const b64 = (u: Uint8Array | null | undefined) => Buffer.from(u ?? []).toString('base64');
      const payloads = input.map((p) => ({
        metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, b64(v)])),
        data: b64(p.data),
      }));
      // What PostgreSQL holds: no marker in clear.
      expect(Buffer.from(payloads[0]!.data, 'base64').toString('utf8')).not.toContain('plain-marker-19');

      const decode = (url: string) =>
        fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ payloads }),
        });
      expect((await decode(`${s.codecUrl}/not-the-token-${'x'.repeat(32)}/decode`)).status).toBe(401);
      const ok = await decode(`${s.codecUrl}/${s.codecToken}/decode`);
      expect(ok.status).toBe(200);
      const decoded = (await ok.json()) as { payloads: Array<{ data: string }> };
      expect(decoded.payloads.map((p) => Buffer.from(p.data, 'base64').toString('utf8')).join('')).toContain(
        'plain-marker-19',
      );
    } finally {
      await connection.close();
    }
    // The Web UI is configured with that credentialed codec URL (when it built here).
    if (s.uiUrl) {
      const settings = (await (await fetch(`${s.uiUrl}/api/v1/settings`)).json()) as {
        Codec?: { Endpoint?: string };
      };
      expect(settings.Codec?.Endpoint).toBe(`${s.codecUrl}/${s.codecToken}`);
    }
  });
});
