import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_OPERATOR_KEY, httpApp, newTenant, type TenantSession } from '../helpers/api.js';
import { HeraldProcess } from '../helpers/herald-process.js';
import { freePort } from '../helpers/ports.js';
import { Receiver } from '../helpers/receiver.js';
import { checkPage, launchChromium, watch } from './browser.js';

/**
 * Issue 18: the tenant portal in Debian's Chromium, against `npm start`'s entry point as a
 * real process with a loopback receiver. Every page visited is checked for the strict CSP,
 * console errors, off-machine requests and serious axe-core findings, and photographed.
 */
describe('18 tenant portal in a real browser', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'herald-portal-'));
  const receiver = new Receiver();
  let herald: HeraldProcess;
  let api: string;
  let hook: string;
  let browser: Browser;
  let a: TenantSession;
  let b: TenantSession;
  const contexts: BrowserContext[] = [];
  /** Paths that answer 500 until they are let through. */
  const failing = new Set<string>();
  /** Paths that answer 410 Gone (R-SMENGO-HEALTH disables the endpoint at once). */
  const gone = new Set<string>();

  beforeAll(async () => {
    const [apiPort, temporalPort, uiPort] = [await freePort(), await freePort(), await freePort()];
    api = `http://127.0.0.1:${apiPort}`;
    receiver.respondWith((req, _i, res) => {
      const path = req.path.split('?')[0]!;
      if (gone.has(path)) res.writeHead(410).end();
      else if (failing.has(path))
        res.writeHead(500, { 'content-type': 'text/plain' }).end('receiver says no');
      else res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks');
    });
    herald = new HeraldProcess({
      HERALD_DATA_DIR: dataDir,
      HERALD_API_PORT: String(apiPort),
      HERALD_TEMPORAL_PORT: String(temporalPort),
      HERALD_TEMPORAL_UI_PORT: String(uiPort),
      HERALD_TASK_QUEUE: 'herald',
      HERALD_OPERATOR_KEY: TEST_OPERATOR_KEY,
    });
    [hook, browser] = await Promise.all([receiver.start(), launchChromium(), herald.start(api)]).then(
      ([h, br]) => [h, br] as const,
    );
    [a, b] = await Promise.all([newTenant(httpApp(api), 'Acme'), newTenant(httpApp(api), 'Bolt')]);
  }, 180_000);

  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => undefined);
    await browser?.close();
    await herald?.interrupt().catch(() => herald.kill());
    await receiver.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const newPage = async () => {
    const context = await browser.newContext({ baseURL: api, viewport: { width: 1200, height: 900 } });
    contexts.push(context);
    const page = await context.newPage();
    return { page, problems: watch(page) };
  };

  /** Clicks and waits for the page the browser lands on (after any redirect). */
  const submit = async (page: Page, click: () => Promise<void>) => {
    const nav = page.waitForNavigation();
    await click();
    return nav;
  };

  const signIn = async (page: Page, problems: string[], key: string, shot?: string) => {
    const res = await page.goto('/portal');
    expect(page.url()).toContain('/portal/sign-in');
    if (shot) await checkPage(page, problems, shot, res);
    await page.getByLabel('API key').fill(key);
    return submit(page, () => page.getByRole('button', { name: 'Sign in' }).click());
  };

  const createEndpoint = async (page: Page, url: string, preset: string, eventTypes: string, policy = '') => {
    await page.goto('/portal/endpoints/new');
    await page.getByLabel('URL', { exact: true }).fill(url);
    await page.getByLabel('Delivery policy preset').selectOption(preset);
    await page.getByLabel('Event types').fill(eventTypes);
    if (policy) await page.getByLabel('Policy overrides (JSON)').fill(policy);
    const res = await submit(page, () => page.getByRole('button', { name: 'Create an endpoint' }).click());
    const id = /ep_[A-Za-z0-9]+/.exec(
      (await page.locator('main .muted code').first().textContent()) ?? '',
    )?.[0];
    expect(id, await page.content()).toBeTruthy();
    return { id: id!, res };
  };

  const publish = async (t: TenantSession, type: string, payload: unknown) => {
    const res = await t.call('POST', '/v1/events', { type, payload });
    expect(res.status, await res.clone().text()).toBe(202);
    return (await res.json()) as { deliveries?: Array<{ id: string }> };
  };

  const endpointStatus = async (t: TenantSession, id: string) =>
    ((await (await t.call('GET', `/v1/endpoints/${id}`)).json()) as { health: { status: string } }).health
      .status;

  let aEndpoint: string;
  let aDelivery: string;

  it('18 sign in with an API key (a wrong key is refused), create an endpoint and see its card; its secret is shown once', async () => {
    const { page, problems } = await newPage();
    await signIn(page, problems, `${a.apiKey.slice(0, -4)}XXXX`, 'sign-in');
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('That key was not accepted');
    problems.splice(0); // the 401 answer itself is logged by Chromium as a failed resource

    const res = await signIn(page, problems, a.apiKey);
    expect(await page.locator('h1').textContent()).toBe('Endpoints');
    await checkPage(page, problems, 'endpoints-empty', res);
    const cookie = (await page.context().cookies()).find((c) => c.name === 'herald_portal')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/portal', secure: false });
    // Reached by any name but loopback (through a TLS proxy), the cookies are Secure.
    const viaProxy = await new Promise<string[]>((resolve, reject) =>
      httpGet(`${api}/portal/sign-in`, { headers: { host: 'herald.example.com' } }, (r) => {
        r.resume();
        resolve(r.headers['set-cookie'] ?? []);
      }).on('error', reject),
    );
    expect(viaProxy.join('\n')).toMatch(/herald_portal_pre=.*; Secure/);

    await page.goto('/portal/endpoints/new');
    await checkPage(page, problems, 'endpoint-new');
    // The API's own validation message, shown on the form with what was typed kept.
    await page.getByLabel('URL', { exact: true }).fill(`${hook}/a`);
    await page.getByLabel('Event types').fill('bad type!');
    await submit(page, () => page.getByRole('button', { name: 'Create an endpoint' }).click());
    expect(await page.getByRole('alert').textContent()).toContain('The request body is not valid');
    expect(await page.getByLabel('Event types').inputValue()).toBe('bad type!');
    problems.splice(0);

    const created = await createEndpoint(page, `${hook}/a`, 'standard', 'order.*');
    aEndpoint = created.id;
    const secret = await page.locator('#secret-value').textContent();
    expect(secret).toMatch(/^whsec_/);
    await checkPage(page, problems, 'endpoint-created', created.res);

    const list = await page.goto('/portal');
    const card = page.locator('article.card', { hasText: `${hook}/a` });
    expect(await card.textContent()).toContain('standard');
    expect(await card.textContent()).toContain('order.*');
    expect(await card.textContent()).toContain('active');
    expect(await page.content()).not.toContain(secret!);
    await checkPage(page, problems, 'endpoints', list);
  });

  it('18 R-SMENGO-LOG: an event published through the API shows as a delivery with its attempt and the body as sent', async () => {
    const { page, problems } = await newPage();
    await signIn(page, problems, a.apiKey);
    await publish(a, 'order.paid', { order: 'o-1', amount: 4200 });
    await receiver.waitFor(1);
    let res = await page.goto('/portal/deliveries');
    await expect
      .poll(
        async () => {
          res = await page.goto('/portal/deliveries');
          return page.locator('tbody tr', { hasText: 'order.paid' }).count();
        },
        { timeout: 20_000 },
      )
      .toBe(1);
    await checkPage(page, problems, 'deliveries', res);
    const link = page.locator('tbody tr', { hasText: 'order.paid' }).getByRole('link');
    aDelivery = (await link.textContent())!;
    await expect
      .poll(
        async () => {
          res = await page.goto(`/portal/deliveries/${aDelivery}`);
          return page.locator('#delivery-status').textContent();
        },
        { timeout: 20_000 },
      )
      .toBe('succeeded');
    const row = page.locator('table.attempts tbody tr').first();
    expect(await row.textContent()).toContain('200');
    expect(await row.textContent()).toContain('thanks');
    expect(await page.locator('pre.body').textContent()).toContain('"o-1"');
    await checkPage(page, problems, 'delivery', res);

    // R-SMENGO-LOG shows 25; older ones are a page further.
    await Promise.all(Array.from({ length: 25 }, (_x, i) => publish(a, 'order.bulk', { i })));
    await expect
      .poll(
        async () => {
          await page.goto('/portal/deliveries');
          return page.locator('tbody tr', { hasText: 'order.bulk' }).count();
        },
        { timeout: 20_000 },
      )
      .toBe(25);
    expect(await page.locator('tbody tr', { hasText: 'order.paid' }).count()).toBe(0);
    await submit(page, () => page.getByRole('link', { name: 'Older deliveries' }).click());
    expect(await page.locator('tbody tr', { hasText: 'order.paid' }).count()).toBe(1);
    expect(await page.getByRole('link', { name: 'Newest' }).count()).toBe(1);

    // Filters: by status, and one that matches nothing.
    await page.goto(`/portal/deliveries?status=failed`);
    expect(await page.locator('tbody tr').count()).toBe(0);
    await page.goto(`/portal/deliveries?eventType=order.paid&endpointId=${aEndpoint}`);
    expect(await page.locator('tbody tr').count()).toBe(1);
    problems.splice(0);
  });

  it('18 R-RH-DLQ: a delivery the receiver refuses until it is a dead letter is retried from the page and succeeds', async () => {
    const { page, problems } = await newPage();
    await signIn(page, problems, a.apiKey);
    failing.add('/rh');
    const { id } = await createEndpoint(page, `${hook}/rh`, 'railhook', 'rh.*', '{"maxAttempts": 1}');
    await publish(a, 'rh.created', { n: 1 });
    let res = await page.goto('/portal/dead-letters');
    await expect
      .poll(
        async () => {
          res = await page.goto('/portal/dead-letters');
          return page.locator('tbody tr', { hasText: 'rh.created' }).count();
        },
        { timeout: 30_000 },
      )
      .toBe(1);
    await checkPage(page, problems, 'dead-letters', res);
    const before = receiver.requests.filter((r) => r.path === '/rh').length;
    failing.delete('/rh');
    res = await submit(page, () =>
      page.locator('tbody tr', { hasText: 'rh.created' }).getByRole('button', { name: 'Retry' }).click(),
    );
    expect(await page.getByRole('status').first().textContent()).toContain('1 delivery sent back for retry');
    await expect
      .poll(() => receiver.requests.filter((r) => r.path === '/rh').length, { timeout: 20_000 })
      .toBe(before + 1);
    await expect
      .poll(
        async () => {
          const d = await a.call('GET', `/v1/deliveries?endpointId=${id}`);
          return ((await d.json()) as { data: Array<{ status: string }> }).data.map((x) => x.status);
        },
        { timeout: 20_000 },
      )
      .toEqual(['succeeded']);
    problems.splice(0);
  });

  it('18 R-DT-REPLAY: a portal link signs in; the replay-failures dialog shows blocked, waiting and ready before anything is sent; replay one; a quota error is a message', async () => {
    const c = await newTenant(httpApp(api), 'Dong');
    const linkRes = await c.call('POST', '/v1/portal-links', { expiresInMinutes: 5 });
    expect(linkRes.status, await linkRes.clone().text()).toBe(201);
    const { url } = (await linkRes.json()) as { url: string };
    expect(url.startsWith(`${api}/portal/link?token=`)).toBe(true);

    const { page, problems } = await newPage();
    let res = await submit(page, async () => void (await page.goto(url)));
    expect(new URL(page.url()).pathname).toBe('/portal');
    expect(await page.locator('h1').textContent()).toBe('Endpoints');
    // One-time: the same link again is refused with a page, not a session.
    const other = await newPage();
    const again = await other.page.goto(url);
    expect(again?.status()).toBe(410);
    expect(await other.page.locator('h1').textContent()).toBe('This portal link was already used');
    await checkPage(
      other.page,
      other.problems.filter((p) => !p.includes('410')),
      'link-used',
      again,
    );
    other.problems.splice(0);

    // ready: finished, endpoint active. waiting: a retry is scheduled. blocked: endpoint paused.
    for (const p of ['/dt-ready', '/dt-wait', '/dt-block']) failing.add(p);
    const ready = await createEndpoint(page, `${hook}/dt-ready`, 'dongtien', 'ready.*', '{"maxAttempts": 1}');
    const wait = await createEndpoint(
      page,
      `${hook}/dt-wait`,
      'dongtien',
      'wait.*',
      '{"retryDelays": [3600]}',
    );
    const block = await createEndpoint(page, `${hook}/dt-block`, 'dongtien', 'block.*', '{"maxAttempts": 1}');
    for (const type of ['ready.one', 'wait.one', 'block.one']) await publish(c, type, { type });
    await expect
      .poll(
        () =>
          ['/dt-ready', '/dt-wait', '/dt-block'].every((p) => receiver.requests.some((r) => r.path === p)),
        {
          timeout: 20_000,
        },
      )
      .toBe(true);
    await page.goto(`/portal/endpoints/${block.id}`);
    await submit(page, () => page.getByRole('button', { name: 'Pause' }).click());
    expect(await page.getByRole('status').first().textContent()).toContain('Endpoint paused.');
    failing.delete('/dt-ready');

    const count = (g: string) => page.locator(`section.group-${g} li`).count();
    await expect
      .poll(
        async () => {
          res = await page.goto('/portal/replay');
          return [await count('blocked'), await count('waiting'), await count('ready')];
        },
        { timeout: 30_000 },
      )
      .toEqual([1, 1, 1]);
    const dialog = page.getByRole('dialog', { name: 'Replay failures' });
    expect(await dialog.locator('section.group-blocked').textContent()).toContain('endpoint_paused');
    expect(await dialog.locator('section.group-waiting').textContent()).toContain('wait.one');
    expect(await dialog.locator('section.group-ready').textContent()).toContain('ready.one');
    await checkPage(page, problems, 'replay-failures', res);
    const sentBefore = receiver.requests.length;
    // Nothing is sent by the preview itself.
    expect(receiver.requests.length).toBe(sentBefore);
    await submit(page, () => dialog.getByRole('button', { name: 'Replay 1 ready delivery' }).click());
    expect(await page.getByRole('status').first().textContent()).toContain('1 delivery replayed.');
    await expect
      .poll(() => receiver.requests.filter((r) => r.path === '/dt-ready').length, { timeout: 20_000 })
      .toBe(2);
    expect(receiver.requests.filter((r) => r.path === '/dt-block')).toHaveLength(1);

    // Replay one delivery from its page: a new round, sent at once.
    const readyRow = await c.call('GET', `/v1/deliveries?endpointId=${ready.id}`);
    const [readyDelivery] = ((await readyRow.json()) as { data: Array<{ id: string }> }).data;
    await expect
      .poll(
        async () => {
          await page.goto(`/portal/deliveries/${readyDelivery!.id}`);
          return page.locator('#delivery-status').textContent();
        },
        { timeout: 20_000 },
      )
      .toBe('succeeded');
    res = await submit(page, () => page.getByRole('button', { name: 'Replay this delivery' }).click());
    expect(await page.getByRole('status').first().textContent()).toContain('Replay started');
    await expect
      .poll(() => receiver.requests.filter((r) => r.path === '/dt-ready').length, { timeout: 20_000 })
      .toBe(3);
    void wait;

    // Quota errors are messages on the page: Dong Tien allows 30 replay requests a minute.
    // The minute is the clock's (R-DT-REPLAY); the requests below and the form after them
    // must fall in one, so a run near its end waits for the next.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 40_000) await new Promise((r) => setTimeout(r, 60_500 - intoMinute));
    const csrf = await page.locator('input[name="_csrf"]').first().inputValue();
    let last = 0;
    for (let i = 0; i < 35 && last !== 429; i++)
      last = (
        await page.context().request.post('/portal/replay', { form: { _csrf: csrf }, maxRedirects: 0 })
      ).status();
    expect(last).toBe(429);
    await page.goto('/portal/replay');
    // The confirm button is disabled with nothing ready; the form is sent as it stands.
    res = await submit(page, () =>
      page.locator('dialog form').evaluate((f) => (f as unknown as { submit(): void }).submit()),
    );
    expect(res?.status()).toBe(429);
    expect(await page.getByRole('alert').textContent()).toContain('Too many replay requests');
    problems.splice(0);
  });

  it('18 an expired or forged portal link shows a clear page, never a session', async () => {
    // Imported here, so that the other cases run (and fail on what they show) on a Herald without the portal.
    const { PortalTokens } = await import('../../src/portal/tokens.js');
    const secret = readFileSync(join(dataDir, 'portal.key'), 'utf8').trim();
    const keyId = a.apiKey.split('.')[2]!;
    const expired = new PortalTokens(secret).issueLink(a.tenantId, keyId, Date.now() - 1_000);
    const { page, problems } = await newPage();
    let res = await page.goto(`/portal/link?token=${encodeURIComponent(expired)}`);
    expect(res?.status()).toBe(410);
    expect(await page.locator('h1').textContent()).toBe('This portal link has expired');
    problems.splice(0);
    await checkPage(page, problems, 'link-expired', res);
    const forged = new PortalTokens('x'.repeat(40)).issueLink(a.tenantId, keyId, Date.now() + 60_000);
    res = await page.goto(`/portal/link?token=${encodeURIComponent(forged)}`);
    expect(res?.status()).toBe(400);
    expect(await page.locator('h1').textContent()).toBe('This portal link is not valid');
    expect((await page.context().cookies()).some((c) => c.name === 'herald_portal')).toBe(false);
    await page.goto('/portal');
    expect(page.url()).toContain('/portal/sign-in');
    problems.splice(0);
  });

  it('18 R-BIRD-REPLAY: a window replay from the endpoint page, with the 3-day reach explained, sends the failure again', async () => {
    const { page, problems } = await newPage();
    await signIn(page, problems, a.apiKey);
    failing.add('/bird');
    const { id } = await createEndpoint(page, `${hook}/bird`, 'bird', 'bird.*', '{"maxAttempts": 1}');
    await publish(a, 'bird.sang', { n: 1 });
    await expect
      .poll(() => receiver.requests.filter((r) => r.path === '/bird').length, { timeout: 20_000 })
      .toBe(1);
    failing.delete('/bird');
    let res = await page.goto(`/portal/endpoints/${id}`);
    const section = page.locator('section', { hasText: 'Replay a time window' });
    expect(await section.textContent()).toContain('at most 3 days');
    await checkPage(page, problems, 'endpoint-bird', res);
    res = await submit(page, () => section.getByRole('button', { name: 'Replay this window' }).click());
    expect(await page.getByRole('status').first().textContent()).toContain('Window replay accepted');
    await expect
      .poll(() => receiver.requests.filter((r) => r.path === '/bird').length, { timeout: 30_000 })
      .toBe(2);
    // A window whose start is after its end: the API's own message, on the page.
    await page.getByLabel('Since (UTC)').fill('2026-01-02T00:00');
    await page.getByLabel('Until (UTC)').fill('2026-01-01T00:00');
    await submit(page, () => section.getByRole('button', { name: 'Replay this window' }).click());
    expect(await page.getByRole('alert').textContent()).toMatch(/since|window/i);
    problems.splice(0);
  });

  it('18 rotate the secret: the new one is shown once, and the chart shows the last 24 h', async () => {
    const { page, problems } = await newPage();
    await signIn(page, problems, a.apiKey);
    await page.goto(`/portal/endpoints/${aEndpoint}`);
    expect(await page.locator('figure.chart svg').getAttribute('aria-label')).toMatch(
      /26 succeeded, 0 failed/,
    );
    const res = await submit(page, () => page.getByRole('button', { name: 'Rotate the secret' }).click());
    const secret = await page.locator('#secret-value').textContent();
    expect(secret).toMatch(/^whsec_/);
    expect(await page.locator('.secret').textContent()).toContain('shown once');
    await checkPage(page, problems, 'secret-rotated', res);
    // Visiting the endpoint again shows no secret (a reload would re-send the form, which
    // Chromium asks about first).
    await page.goto(`/portal/endpoints/${aEndpoint}`);
    expect(await page.locator('#secret-value').count()).toBe(0);
    expect(await page.content()).not.toContain(secret!);
    const view = (await (await a.call('GET', `/v1/endpoints/${aEndpoint}`)).json()) as {
      secretCount: number;
    };
    expect(view.secretCount).toBe(2);
  });

  it('18 R-SMENGO-HEALTH, R-SMENGO-PAUSE: a disabled endpoint shows its banner reason; send a test shows its result; edit keeps the API’s validation messages; re-enable from the page', async () => {
    const { page, problems } = await newPage();
    await signIn(page, problems, a.apiKey);
    gone.add('/smengo');
    const { id } = await createEndpoint(page, `${hook}/smengo`, 'smengo', 'sm.*');
    await publish(a, 'sm.created', { n: 1 });
    await expect.poll(() => endpointStatus(a, id), { timeout: 20_000 }).toBe('disabled');
    let res = await page.goto('/portal');
    const card = page.locator('article.card', { hasText: `${hook}/smengo` });
    expect(await card.locator('.banner').textContent()).toMatch(/410|gone/i);
    await checkPage(page, problems, 'endpoint-disabled', res);

    await page.goto(`/portal/endpoints/${id}`);
    await submit(page, () => page.getByRole('button', { name: 'Send a test' }).click());
    expect(await page.getByRole('status').first().textContent()).toContain('Test failed (410)');

    const edit = page.locator('section', { hasText: 'Save changes' });
    await edit.getByLabel('Event types').fill('sm.*, not valid!');
    res = await submit(page, () => edit.getByRole('button', { name: 'Save changes' }).click());
    expect(res?.status()).toBe(400);
    expect(await page.getByRole('alert').textContent()).toContain('eventTypes.1');
    await edit.getByLabel('Event types').fill('sm.*, refund.*');
    await submit(page, () => edit.getByRole('button', { name: 'Save changes' }).click());
    expect(await page.getByRole('status').first().textContent()).toContain('Changes saved.');
    const view = (await (await a.call('GET', `/v1/endpoints/${id}`)).json()) as {
      config: { eventTypes: string[] };
    };
    expect(view.config.eventTypes).toEqual(['sm.*', 'refund.*']);

    gone.delete('/smengo');
    await submit(page, () => page.getByRole('button', { name: 'Re-enable' }).click());
    expect(await page.getByRole('status').first().textContent()).toContain('Endpoint resumed.');
    expect(await endpointStatus(a, id)).toBe('active');
    problems.splice(0);
  });

  it("18 isolation: tenant B's session cannot read or act on tenant A's endpoint or delivery (404 page, nothing changes)", async () => {
    const { page, problems } = await newPage();
    await signIn(page, problems, b.apiKey);
    let res = await page.goto(`/portal/endpoints/${aEndpoint}`);
    expect(res?.status()).toBe(404);
    expect(await page.locator('h1').textContent()).toBe('Not found');
    expect(await page.content()).not.toContain(`${hook}/a`);
    problems.splice(0);
    await checkPage(page, problems, 'not-found', res);
    res = await page.goto(`/portal/deliveries/${aDelivery}`);
    expect(res?.status()).toBe(404);
    // A well-formed form, with B's own CSRF token, aimed at A's endpoint.
    await page.goto('/portal');
    res = await submit(page, () =>
      page.locator('form[action="/portal/sign-out"]').evaluate((el, id) => {
        const form = el as unknown as { action: string; submit(): void };
        form.action = `/portal/endpoints/${id}/pause`;
        form.submit();
      }, aEndpoint),
    );
    expect(res?.status()).toBe(404);
    expect(await endpointStatus(a, aEndpoint)).toBe('active');
    problems.splice(0);
  });

  it('18 a form submitted without its CSRF token is refused with a page, and changes nothing', async () => {
    const { page, problems } = await newPage();
    await signIn(page, problems, a.apiKey);
    await page.goto(`/portal/endpoints/${aEndpoint}`);
    await page.locator('form[action$="/pause"] input[name="_csrf"]').evaluate((el) => el.remove());
    const res = await submit(page, () => page.getByRole('button', { name: 'Pause' }).click());
    expect(res?.status()).toBe(403);
    expect(await page.locator('h1').textContent()).toBe('This form was refused');
    expect(await endpointStatus(a, aEndpoint)).toBe('active');
    problems.splice(0);
    await checkPage(page, problems, 'csrf-refused', res);
  });

  it('18 events, sources, forwards and the operator view render; /docs works offline from / ', async () => {
    const { page, problems } = await newPage();
    await signIn(page, problems, a.apiKey);
    let res = await page.goto('/portal/events');
    expect(await page.locator('tbody tr', { hasText: 'order.paid' }).count()).toBe(1);
    await checkPage(page, problems, 'events', res);
    res = await submit(page, () =>
      page.locator('tbody tr', { hasText: 'order.paid' }).getByRole('link').click(),
    );
    expect(await page.locator('pre.body').textContent()).toContain('"o-1"');
    await checkPage(page, problems, 'event', res);
    for (const [path, name] of [
      ['/portal/sources', 'sources'],
      ['/portal/forwards', 'forwards'],
    ] as const) {
      res = await page.goto(path);
      expect(res?.status()).toBe(200);
      await checkPage(page, problems, name, res);
    }

    const op = await newPage();
    await signIn(op.page, op.problems, TEST_OPERATOR_KEY);
    expect(new URL(op.page.url()).pathname).toBe('/portal/operator');
    await op.page.getByLabel('Tenant id').fill(b.tenantId);
    res = await submit(op.page, () => op.page.getByRole('button', { name: 'Show' }).click());
    expect(await op.page.locator('article.card').textContent()).toContain('Bolt');
    await checkPage(op.page, op.problems, 'operator', res);
    await submit(op.page, () => op.page.getByRole('button', { name: 'Deactivate' }).click());
    expect(await op.page.getByRole('status').first().textContent()).toContain('Subscription changed.');
    const tb = (await (
      await fetch(`${api}/v1/admin/tenants/${b.tenantId}`, {
        headers: { authorization: `Bearer ${TEST_OPERATOR_KEY}` },
      })
    ).json()) as { subscriptionActive: boolean };
    expect(tb.subscriptionActive).toBe(false);

    res = await page.goto('/');
    await submit(page, () => page.getByRole('link', { name: 'API reference' }).click());
    await page.locator('.swagger-ui .info').waitFor({ timeout: 20_000 });
    expect(await page.locator('.swagger-ui').textContent()).toContain('Herald');
    expect(problems.filter((p) => p.includes('off-machine'))).toEqual([]);
  });
});
