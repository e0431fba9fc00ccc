import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../src/api/app.js';
import { deliveryStateQuery } from '../../../src/shared/messages.js';
import type { DeliveryState } from '../../../src/shared/delivery-types.js';
import { generateSecret } from '../../../src/signing/standard-webhooks.js';
import { newTenant, type TenantSession } from '../../helpers/api.js';
import { startDevWorker } from '../../helpers/dev-worker.js';
import { Receiver } from '../../helpers/receiver.js';
import { testConfig } from '../../helpers/temporal.js';

/**
 * Issue 13.3 (R-SSRF, R-URL): with loopback receivers allowed (as `npm start` allows them),
 * a tenant still cannot aim a delivery at one of Herald's own listeners. The worker and the
 * API take the ports from their configuration; real loopback listeners on those ports stand
 * in for Herald's processes (free ports: the defaults may be in use on this machine).
 */
const OWN_PORT_SETTINGS = [
  'HERALD_API_PORT',
  'HERALD_CODEC_PORT',
  'HERALD_TEMPORAL_PORT',
  'HERALD_TEMPORAL_HTTP_PORT',
  'HERALD_TEMPORAL_METRICS_PORT',
  'HERALD_TEMPORAL_UI_PORT',
] as const;
const PROBLEM = /^application\/problem\+json/;

describe('13.3 R-SSRF: Herald never delivers to its own ports', () => {
  const own = OWN_PORT_SETTINGS.map(() => new Receiver());
  const other = new Receiver();
  let ownBases: string[] = [];
  let otherBase = '';
  let w: Awaited<ReturnType<typeof startDevWorker>>;

  beforeAll(async () => {
    [otherBase, ...ownBases] = await Promise.all([other.start(), ...own.map((r) => r.start())]);
    const ports = Object.fromEntries(OWN_PORT_SETTINGS.map((k, i) => [k, new URL(ownBases[i]!).port]));
    w = await startDevWorker(ports);
  });
  afterAll(async () => {
    await w?.stop();
    await Promise.all([other.stop(), ...own.map((r) => r.stop())]);
  });

  async function expectRefused(res: Response, what: string, path: string) {
    const text = await res.text();
    expect(res.status, `${what}: ${text}`).toBe(400);
    expect(res.headers.get('content-type'), what).toMatch(PROBLEM);
    expect(JSON.parse(text), what).toMatchObject({ code: 'port_not_allowed' });
    expect(text, what).toContain(path);
  }

  it('13.3 R-URL: the API refuses an endpoint, an operational webhook, an ad-hoc target and a source destination on each own port; another loopback port is accepted', async () => {
    const tenant: TenantSession = await newTenant(createApp({ client: w.client, config: w.config }), '13.3 save');
    for (const [i, base] of ownBases.entries()) {
      const what = `${OWN_PORT_SETTINGS[i]} ${base}`;
      await expectRefused(await tenant.call('POST', '/v1/endpoints', { url: `${base}/hook` }), what, 'url');
      await expectRefused(
        await tenant.call('POST', '/v1/endpoints', {
          url: `${otherBase}/ep`,
          operationalWebhook: { url: `${base}/ops` },
        }),
        `operational webhook ${what}`,
        'url',
      );
      await expectRefused(
        await tenant.call('POST', '/v1/events', {
          type: 'x.y',
          payload: {},
          targets: [{ url: `${base}/t`, secrets: [generateSecret()] }],
        }),
        `target ${what}`,
        'targets.0.url',
      );
      await expectRefused(
        await tenant.call('POST', '/v1/sources', { destinations: [{ url: `${base}/d` }] }),
        `destination ${what}`,
        'url',
      );
    }
    const ok = await tenant.call('POST', '/v1/endpoints', { url: `${otherBase}/hook` });
    expect(ok.status, await ok.clone().text()).toBe(201);
    expect(own.flatMap((r) => r.requests)).toHaveLength(0);
  });

  it('13.3 R-SSRF: a stored URL to an own port gets a not-sent port_not_allowed attempt from the worker and the listener receives nothing', async () => {
    // Targets accepted by an API that does not know these ports, as a URL stored before
    // the rule would be: the worker checks again at send time.
    const lenient = testConfig({ HERALD_TASK_QUEUE: w.config.HERALD_TASK_QUEUE });
    const tenant = await newTenant(createApp({ client: w.client, config: lenient }), '13.3 send');
    const urls = [...ownBases.map((b) => `${b}/send`), `${otherBase}/send`];
    const res = await tenant.call('POST', '/v1/events', {
      type: 'x.y',
      payload: { n: 1 },
      targets: urls.map((url) => ({ url, secrets: [generateSecret()] })),
    });
    expect(res.status, await res.clone().text()).toBe(202);
    const { deliveries } = (await res.json()) as { deliveries: Array<{ id: string }> };
    expect(deliveries).toHaveLength(urls.length);

    const firstAttempt = async (id: string) => {
      const h = w.client.workflow.getHandle(id);
      let state: DeliveryState | undefined;
      await expect
        .poll(async () => (state = await h.query(deliveryStateQuery)).attempts.length, { timeout: 30_000 })
        .toBeGreaterThan(0);
      return state!.attempts[0]!;
    };
    await other.waitFor(1);
    expect((await firstAttempt(deliveries.at(-1)!.id)).httpStatus).toBe(200);
    for (const [i, d] of deliveries.slice(0, -1).entries()) {
      const a = await firstAttempt(d.id);
      expect(a, urls[i]).toMatchObject({ code: 'port_not_allowed' });
      expect(a.httpStatus, urls[i]).toBeUndefined();
    }
    expect(own.flatMap((r) => r.requests)).toHaveLength(0);
    await Promise.all(deliveries.map((d) => w.client.workflow.getHandle(d.id).terminate('13.3 test done').catch(() => {})));
  });
});
