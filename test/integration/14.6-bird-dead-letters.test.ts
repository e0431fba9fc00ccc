import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { REPLAY_WINDOW_WORKFLOW } from '../../src/shared/names.js';
import { jsonOf as json, newTenant, type TenantSession } from '../helpers/api.js';
import { startDevWorker } from '../helpers/dev-worker.js';
import { Receiver } from '../helpers/receiver.js';

/**
 * Issue 14.6: Bird keeps no dead-letter list ("Bird nie udostępnia osobnej kolejki
 * nieudanych zdarzeń"); its recovery is window replay. Through the real API on the dev
 * server, for a tenant whose endpoints mix Bird and Railhook.
 */

type Problem = { status: number; code: string; title: string; detail?: string; type: string } & Record<
  string,
  unknown
>;
type DeadLetter = { id: string; endpointId: string; retryable: boolean };
type Delivery = { id: string; status: string; attemptCount: number; round: number };

/** Polls outside a test body (hooks cannot use expect.poll). */
async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await delay(200);
  }
}

describe('14.6 R-BIRD-REPLAY: Bird has no dead-letter list (dev server)', () => {
  let w: Awaited<ReturnType<typeof startDevWorker>>;
  let app: ReturnType<typeof createApp>;
  const receiver = new Receiver((_req, _i, res) => res.writeHead(500).end('boom'));
  let base: string;
  let t: TenantSession;
  const ep = { bird: '', rh: '' };
  const dl = { bird: '', rh: '' };
  const sentTo = (path: string) => receiver.requests.filter((r) => r.path === path).length;

  const problem = async (res: Response | Promise<Response>, status: number, code: string) => {
    const r = await res;
    expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const body = await json<Problem>(r, status);
    expect(body).toMatchObject({ status, code, type: `https://herald.dev/problems/${code}` });
    return body;
  };
  const delivery = (id: string) => json<Delivery>(t.call('GET', `/v1/deliveries/${id}`), 200);

  beforeAll(async () => {
    [w, base] = await Promise.all([startDevWorker(), receiver.start()]);
    app = createApp({ client: w.client, config: w.config });
    t = await newTenant(app);
    // One attempt each: both deliveries are exhausted at once.
    const policy = { maxAttempts: 1, retryDelays: [1], timeoutSeconds: 5 };
    for (const [key, preset] of [
      ['bird', 'bird'],
      ['rh', 'railhook'],
    ] as const) {
      const { endpoint } = await json<{ endpoint: { endpointId: string } }>(
        t.call('POST', '/v1/endpoints', { url: `${base}/${key}`, preset, eventTypes: ['mix.*'], policy }),
        201,
      );
      ep[key] = endpoint.endpointId;
    }
    const published = await json<{ deliveries: Array<{ id: string; endpointId: string }> }>(
      t.call('POST', '/v1/events', { type: 'mix.failed', payload: { n: 1 } }),
      202,
    );
    expect(published.deliveries).toHaveLength(2);
    for (const d of published.deliveries) dl[d.endpointId === ep.bird ? 'bird' : 'rh'] = d.id;
    const status = async (id: string) => {
      const r = await t.call('GET', `/v1/deliveries/${id}`);
      return r.status === 200 ? ((await r.json()) as Delivery).status : undefined;
    };
    await waitUntil(
      'both exhausted',
      async () => (await status(dl.bird)) === 'exhausted' && (await status(dl.rh)) === 'exhausted',
    );
    // Both are exhausted in the index, so a list that leaves one out does so on purpose.
    await waitUntil('visibility', async () => {
      const r = await t.call('GET', '/v1/deliveries?status=exhausted');
      return ((await r.json()) as { data: unknown[] }).data.length === 2;
    });
  });
  afterAll(async () => {
    await w?.stop();
    await receiver.stop();
  });

  it('14.6 R-BIRD-REPLAY: GET /v1/dead-letters across mixed endpoints lists the Railhook dead letter and not the Bird one', async () => {
    const { data } = await json<{ data: DeadLetter[] }>(t.call('GET', '/v1/dead-letters'), 200);
    expect(data.map((d) => d.id)).toEqual([dl.rh]);
    expect(data[0]).toMatchObject({ endpointId: ep.rh, retryable: true });
    // The Railhook filter still lists its own.
    const rh = await json<{ data: DeadLetter[] }>(t.call('GET', `/v1/dead-letters?endpointId=${ep.rh}`), 200);
    expect(rh.data.map((d) => d.id)).toEqual([dl.rh]);
  });

  it('14.6 R-BIRD-REPLAY: GET /v1/dead-letters?endpointId=<bird> → 409 dead_letters_not_offered pointing at POST /v1/replay/window', async () => {
    const p = await problem(
      t.call('GET', `/v1/dead-letters?endpointId=${ep.bird}`),
      409,
      'dead_letters_not_offered',
    );
    expect(p.detail).toContain('POST /v1/replay/window');
    expect(p.detail).toContain(`GET /v1/endpoints/${ep.bird}/attempts`);
    expect(p).toMatchObject({
      endpointId: ep.bird,
      preset: 'bird',
      replay: { method: 'POST', href: '/v1/replay/window', body: { endpointId: ep.bird } },
    });
  });

  it('14.6 R-BIRD-REPLAY: retrying a Bird delivery as a dead letter → 409 dead_letters_not_offered, nothing sent, the delivery unchanged', async () => {
    const before = sentTo('/bird');
    expect(before).toBe(1);
    const p = await problem(
      t.call('POST', `/v1/dead-letters/${dl.bird}/retry`),
      409,
      'dead_letters_not_offered',
    );
    expect(p.detail).toContain('POST /v1/replay/window');

    // Bulk by id: refused with the same code. Bulk "all": the Bird delivery is not even taken up.
    const byId = await json<{ retried: string[]; failed: Array<{ id: string; code: string }> }>(
      t.call('POST', '/v1/dead-letters/retry', { ids: [dl.bird] }),
      202,
    );
    expect(byId).toEqual({ retried: [], failed: [{ id: dl.bird, code: 'dead_letters_not_offered' }] });
    const all = await json<{ retried: string[]; failed: Array<{ id: string; code: string }> }>(
      t.call('POST', '/v1/dead-letters/retry', { all: true }),
      202,
    );
    expect(all.retried).toEqual([dl.rh]);
    expect(all.failed).toEqual([]);

    await delay(2000);
    expect(sentTo('/bird')).toBe(before);
    expect(await delivery(dl.bird)).toMatchObject({ status: 'exhausted', attemptCount: 1, round: 1 });
    // The Railhook one was retried (+3 attempts), so it was sent again.
    await expect.poll(() => sentTo('/rh'), { timeout: 30_000 }).toBeGreaterThan(1);
  });

  it('14.6 R-BIRD-REPLAY: a Bird delivery is not replayed on its own (409 delivery_replay_not_offered); window replay resends it once', async () => {
    const p = await problem(
      t.call('POST', `/v1/replay/deliveries/${dl.bird}`),
      409,
      'delivery_replay_not_offered',
    );
    expect(p.detail).toContain('POST /v1/replay/window');
    // Nor is it offered in the bulk preview.
    const preview = await json<Record<'blocked' | 'waiting' | 'ready', Array<{ id: string }>>>(
      t.call('GET', '/v1/replay/failures/preview'),
      200,
    );
    for (const g of [preview.blocked, preview.waiting, preview.ready])
      expect(g.map((x) => x.id)).not.toContain(dl.bird);

    // What the problem points at works: one more attempt, in a new round.
    const before = sentTo('/bird');
    expect((await t.call('POST', '/v1/replay/window', { endpointId: ep.bird })).status).toBe(202);
    await expect.poll(() => sentTo('/bird'), { timeout: 60_000 }).toBe(before + 1);
    const query = `WorkflowType = '${REPLAY_WINDOW_WORKFLOW}' AND HeraldEndpoint = '${ep.bird}'`;
    for await (const wf of w.client.workflow.list({ query }))
      await w.client.workflow.getHandle(wf.workflowId).result();
    await expect.poll(async () => (await delivery(dl.bird)).round, { timeout: 30_000 }).toBe(2);
  });
});
