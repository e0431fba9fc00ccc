import { Client, Connection } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { loadConfig } from '../../src/config.js';
import { freePort } from '../helpers/ports.js';

/**
 * Issue 18: signing in while Temporal cannot answer says Herald is unavailable (503), never
 * that the key was refused: the key may well be valid.
 */
describe('18 portal sign-in during a Temporal outage', () => {
  it('18 a well-formed key is answered with the unavailable page (503), not "not accepted"', async () => {
    // A port nothing listens on: every call to Temporal fails as in an outage.
    const address = `127.0.0.1:${await freePort()}`;
    const client = new Client({ connection: Connection.lazy({ address, connectTimeout: 500 }) });
    const app = createApp({ client, config: loadConfig({ HERALD_PORTAL_SECRET: 'p'.repeat(40) }) });
    const form = await app.request('/portal/sign-in');
    const cookie = (form.headers.get('set-cookie') ?? '').split(';')[0]!;
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
    const res = await app.request('/portal/sign-in', {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        _csrf: csrf,
        key: 'hk.tn_0123456789abcdef.key_0123456789ab.abcdefghijklmnopqrstuvwxyz012345',
      }).toString(),
    });
    const page = await res.text();
    expect(res.status, page).toBe(503);
    expect(page).toContain('Herald is unavailable');
    expect(page).not.toContain('not accepted');
    await client.connection.close().catch(() => undefined);
  }, 60_000);
});
