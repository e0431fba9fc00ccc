import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpSender } from '../../../src/activities/http-sender.js';
import { PinnedDispatchers } from '../../../src/activities/pinned-dispatcher.js';
import { parseCidrList } from '../../../src/policy/address.js';
import { checkEndpointUrl } from '../../../src/policy/url-check.js';
import type { SendRequest } from '../../../src/shared/delivery-types.js';
import { generateSecret } from '../../../src/signing/standard-webhooks.js';
import { Receiver } from '../../helpers/receiver.js';

/**
 * Issue 13.3 (R-SSRF, R-URL): a loopback receiver allowed for development never reaches
 * Herald's own listeners. Their ports are refused even for allowInsecureHosts, at save time
 * (the pure check) and at send time (the real sender, against a real listener on the port).
 */
const OWN = {
  api: 3000,
  codec: 3001,
  'Temporal frontend': 7233,
  'Temporal HTTP API': 7243,
  'Temporal metrics': 7244,
  'Web UI': 8233,
};
const RESERVED = Object.values(OWN);
const INSECURE = ['127.0.0.1', 'localhost', '[::1]'];

describe('13.3 R-URL: the URL check refuses Herald\'s own ports, loopback included', () => {
  it.each(Object.entries(OWN))('13.3 R-URL: a loopback URL to the %s port (%i) is port_not_allowed', (_what, port) => {
    const opts = { allowInsecureHosts: INSECURE, reservedPorts: RESERVED };
    for (const host of INSECURE) {
      const r = checkEndpointUrl(`http://${host}:${port}/v1/admin/tenants`, opts);
      expect(r, `${host}:${port}`).toMatchObject({ ok: false, code: 'port_not_allowed' });
      expect(checkEndpointUrl(`https://${host}:${port}/x`, opts), `https ${host}:${port}`).toMatchObject({
        ok: false,
        code: 'port_not_allowed',
      });
    }
  });

  it('13.3 R-URL: the scheme default counts as a port, and other loopback ports still pass', () => {
    const opts = { allowInsecureHosts: INSECURE, reservedPorts: [80, 7233] };
    expect(checkEndpointUrl('http://127.0.0.1/hook', opts)).toMatchObject({ ok: false, code: 'port_not_allowed' });
    expect(checkEndpointUrl('http://127.0.0.1:80/hook', opts)).toMatchObject({ ok: false, code: 'port_not_allowed' });
    expect(checkEndpointUrl('http://127.0.0.1:4123/hook', opts)).toMatchObject({ ok: true });
    expect(checkEndpointUrl('https://example.com/hook', opts)).toMatchObject({ ok: true });
  });
});

describe('13.3 R-SSRF: the real sender sends nothing to a listener on one of Herald\'s own ports', () => {
  // Real loopback listeners on free ports stand in for Herald's processes: the defaults
  // (3000, 7233, ...) may be taken by a Herald already running on this machine.
  const own = [new Receiver(), new Receiver(), new Receiver()];
  const other = new Receiver();
  const dispatchers = new PinnedDispatchers();
  let ownBases: string[] = [];
  let otherBase = '';
  beforeAll(async () => {
    [otherBase, ...ownBases] = await Promise.all([other.start(), ...own.map((r) => r.start())]);
  });
  afterAll(async () => {
    await Promise.all([other.stop(), ...own.map((r) => r.stop()), dispatchers.close()]);
  });

  const portOf = (base: string) => Number(new URL(base).port);
  const request = (url: string): SendRequest => ({
    deliveryId: 'dl_13_3',
    attempt: 1,
    event: { id: 'evt_13_3', type: 'x.y', occurredAt: '2026-01-01T00:00:00Z', body: '{"type":"x.y"}' },
    target: { url, secrets: [generateSecret()] },
    timeoutSeconds: 2,
    deliveryIdHeader: 'Webhook-Delivery-Id',
  });

  it('13.3 R-SSRF: each own port gets a not-sent port_not_allowed attempt and no request; another loopback port is delivered to', async () => {
    // The sender reads its options when built; ports are known only after the listeners start.
    const sender = createHttpSender({
      dispatchers,
      allowAddresses: parseCidrList(['127.0.0.1/32']),
      allowHttpHosts: ['127.0.0.1'],
      reservedPorts: ownBases.map(portOf),
      now: () => new Date(),
    });
    for (const [i, base] of ownBases.entries()) {
      const r = await sender(request(`${base}/v1/admin/tenants`));
      expect(r, base).toMatchObject({ code: 'port_not_allowed', notSent: true });
      expect(r.httpStatus, base).toBeUndefined();
      expect(r.responseBody, base).toBeUndefined();
      expect(own[i]!.requests, base).toHaveLength(0);
    }
    const ok = await sender(request(`${otherBase}/hook`));
    expect(ok).toMatchObject({ httpStatus: 200 });
    expect(other.requests).toHaveLength(1);
  });
});
