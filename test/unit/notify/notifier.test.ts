import type { IncomingHttpHeaders } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createEndpointActivities } from '../../../src/activities/endpoint-activities.js';
import { createHttpSender } from '../../../src/activities/http-sender.js';
import { PinnedDispatchers } from '../../../src/activities/pinned-dispatcher.js';
import { createSmtpMailer, isLoopbackHost } from '../../../src/notify/mailer.js';
import type { NoticeContext } from '../../../src/notify/notices.js';
import {
  createNotifier,
  createWebhookSenderFromHttpSender,
  isPermanentEmailError,
  isPermanentWebhookCode,
} from '../../../src/notify/notifier.js';
import { parseCidrList } from '../../../src/policy/address.js';
import { generateSecret } from '../../../src/signing/standard-webhooks.js';
import { freePort } from '../../helpers/ports.js';
import { Receiver } from '../../helpers/receiver.js';
import { TestSmtpServer } from '../../helpers/smtp.js';

const FROM = 'herald-alerts@herald.test';
const now = () => new Date();

const ctx = (over: Partial<NoticeContext> = {}): NoticeContext => ({
  tenantId: 'ten_acme',
  endpointId: 'ep_42',
  url: 'https://hooks.example.com/orders',
  reason: 'gone',
  at: Date.UTC(2025, 5, 1, 12, 0, 0),
  episode: 1,
  preset: 'smengo',
  ...over,
});

const flatHeaders = (h: IncomingHttpHeaders): Record<string, string> =>
  Object.fromEntries(Object.entries(h).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]));

describe('notify: email over real SMTP', () => {
  let smtp: TestSmtpServer;
  let server: { host: string; port: number };
  let mailer: ReturnType<typeof createSmtpMailer>;

  beforeEach(async () => {
    smtp = new TestSmtpServer({ rejectRecipient: (a) => a.startsWith('bounce@') });
    server = await smtp.start();
    mailer = createSmtpMailer({ host: server.host, port: server.port, from: `Herald <${FROM}>` });
  });
  afterEach(async () => {
    mailer.close();
    await smtp.stop();
  });

  it('14.17 R-SMENGO-HEALTH: the endpoint\'s notice goes to the tenant\'s billing address when there is one, else to the endpoint\'s creator', async () => {
    // Through the endpoint workflow's notify activity, which picks the address.
    const billing = new Map([['ten_billed', 'billing@acme.test']]);
    const acts = createEndpointActivities({
      send: createHttpSender({ dispatchers: new PinnedDispatchers(), allowAddresses: [], allowHttpHosts: [], now }),
      notifier: createNotifier({ mailer, now }),
      billingEmail: async (tenantId) => billing.get(tenantId),
      now,
    });
    const notify = (tenantId: string) =>
      acts.notifyEndpoint({ notice: 'disabled', ctx: ctx({ tenantId }), createdBy: 'creator@acme.test' });
    expect(await notify('ten_billed')).toEqual({ email: 'sent', webhook: undefined });
    await smtp.waitFor(1);
    expect(smtp.messages[0]!.to).toEqual(['billing@acme.test']);
    expect(await notify('ten_unbilled')).toEqual({ email: 'sent', webhook: undefined });
    await smtp.waitFor(2);
    expect(smtp.messages[1]!.to).toEqual(['creator@acme.test']);
    expect(smtp.messages).toHaveLength(2);
  });

  it('R-SMENGO-HEALTH: the disabled email reaches the billing address with the right To, From and Subject', async () => {
    const notifier = createNotifier({ mailer, now });
    const res = await notifier.notify({ notice: 'disabled', ctx: ctx(), emailTo: 'billing@acme.test' });
    expect(res.webhook).toBeUndefined();
    expect(res.email).toHaveProperty('messageId');
    await smtp.waitFor(1);
    const [mail] = smtp.messages;
    expect(mail!.to).toEqual(['billing@acme.test']);
    expect(mail!.from).toBe(FROM);
    expect(mail!.subject).toBe('[Herald] Webhook endpoint disabled: https://hooks.example.com/orders');
    expect(mail!.text).toContain('https://hooks.example.com/orders');
    expect(mail!.text).toContain('410 Gone');
    expect(mail!.text).toContain('2025-06-01T12:00:00.000Z');
    expect(mail!.headers.get('auto-submitted')).toBe('auto-generated');
    expect(mail!.messageId).toBe((res.email as { messageId: string }).messageId);
  });

  it('R-DT-HEALTH: the owner is emailed when the endpoint is suspended', async () => {
    const notifier = createNotifier({ mailer, now });
    const res = await notifier.notify({
      notice: 'suspended',
      ctx: ctx({ preset: 'dongtien', reason: 'consecutive_failures' }),
      emailTo: 'owner@acme.test',
    });
    expect(res.email).toHaveProperty('messageId');
    await smtp.waitFor(1);
    expect(smtp.messages[0]!.to).toEqual(['owner@acme.test']);
    expect(smtp.messages[0]!.subject).toContain('suspended');
    expect(smtp.messages[0]!.text).toContain('10,000 events');
  });

  it('R-BIRD-HEALTH: a repeated notice of the same degradation period keeps its Message-ID; a new period gets a new one', async () => {
    const notifier = createNotifier({ mailer, now });
    const a = await notifier.notify({
      notice: 'degraded',
      ctx: ctx({ preset: 'bird', episode: 3 }),
      emailTo: 'o@acme.test',
    });
    const b = await notifier.notify({
      notice: 'degraded',
      ctx: ctx({ preset: 'bird', episode: 3 }),
      emailTo: 'o@acme.test',
    });
    const c = await notifier.notify({
      notice: 'degraded',
      ctx: ctx({ preset: 'bird', episode: 4 }),
      emailTo: 'o@acme.test',
    });
    await smtp.waitFor(3);
    const ids = smtp.messages.map((m) => m.messageId);
    expect(ids[0]).toBe('<evt_op_ep_42_degraded_3@herald.test>');
    expect(ids[1]).toBe(ids[0]);
    expect(ids[2]).toBe('<evt_op_ep_42_degraded_4@herald.test>');
    expect([a, b, c].map((r) => (r.email as { messageId: string }).messageId)).toEqual(ids);
  });

  it('notify: SMTP with credentials on loopback authenticates without TLS', async () => {
    const authed = new TestSmtpServer({ auth: { user: 'herald', pass: 's3cret' } });
    const where = await authed.start();
    const m = createSmtpMailer({ ...where, from: FROM, auth: { user: 'herald', pass: 's3cret' } });
    const bad = createSmtpMailer({ ...where, from: FROM, auth: { user: 'herald', pass: 'wrong' } });
    try {
      const ok = await createNotifier({ mailer: m, now }).notify({
        notice: 'recovered',
        ctx: ctx(),
        emailTo: 'a@acme.test',
      });
      expect(ok.email).toHaveProperty('messageId');
      await authed.waitFor(1);
      expect(authed.messages[0]!.user).toBe('herald');
      const denied = await createNotifier({ mailer: bad, now }).notify({
        notice: 'recovered',
        ctx: ctx(),
        emailTo: 'a@acme.test',
      });
      expect(denied.email).toMatchObject({ error: 'smtp_rejected_535' });
      expect(authed.messages).toHaveLength(1);
    } finally {
      m.close();
      bad.close();
      await authed.stop();
    }
  });

  it('notify: an emailTo without a mailer is reported as smtp_not_configured', async () => {
    const res = await createNotifier({ now }).notify({
      notice: 'disabled',
      ctx: ctx(),
      emailTo: 'billing@acme.test',
    });
    expect(res).toEqual({ email: { error: 'smtp_not_configured' } });
    expect(isPermanentEmailError('smtp_not_configured')).toBe(true);
  });

  it('notify: no emailTo and no operational webhook sends nothing', async () => {
    expect(await createNotifier({ mailer, now }).notify({ notice: 'disabled', ctx: ctx() })).toEqual({});
    expect(smtp.messages).toHaveLength(0);
  });

  it('notify: a recipient list or malformed address is refused before anything is sent', async () => {
    const notifier = createNotifier({ mailer, now });
    for (const to of ['a@acme.test, b@evil.test', 'Bob <b@acme.test>', 'not-an-address', '']) {
      expect((await notifier.notify({ notice: 'disabled', ctx: ctx(), emailTo: to })).email).toEqual({
        error: 'invalid_recipient',
      });
    }
    expect(smtp.messages).toHaveLength(0);
  });

  it('notify: a recipient the SMTP server rejects is returned as a permanent error', async () => {
    const res = await createNotifier({ mailer, now }).notify({
      notice: 'disabled',
      ctx: ctx(),
      emailTo: 'bounce@acme.test',
    });
    expect(res.email).toMatchObject({ error: 'smtp_rejected_550' });
    expect(isPermanentEmailError((res.email as { error: string }).error)).toBe(true);
  });

  it('notify: SMTP server down returns a retryable error instead of throwing', async () => {
    const port = await freePort();
    const down = createSmtpMailer({ host: '127.0.0.1', port, from: FROM });
    try {
      const res = await createNotifier({ mailer: down, now }).notify({
        notice: 'disabled',
        ctx: ctx(),
        emailTo: 'b@acme.test',
      });
      const email = res.email as { error: string; detail?: string };
      expect(email.error).toMatch(/^smtp_/);
      expect(email.detail).toMatch(/ECONNREFUSED/);
      expect(isPermanentEmailError(email.error)).toBe(false);
    } finally {
      down.close();
    }
  });

  it('notify: the SMTP server stopping between notices yields an error, and a restarted server gets mail again', async () => {
    const notifier = createNotifier({ mailer, now });
    expect(
      (await notifier.notify({ notice: 'degraded', ctx: ctx(), emailTo: 'a@acme.test' })).email,
    ).toHaveProperty('messageId');
    await smtp.stop();
    const failed = await notifier.notify({ notice: 'paused', ctx: ctx(), emailTo: 'a@acme.test' });
    expect(failed.email).toHaveProperty('error');
    smtp = new TestSmtpServer();
    await smtp.start(server.port);
    const again = await notifier.notify({ notice: 'paused', ctx: ctx(), emailTo: 'a@acme.test' });
    expect(again.email).toHaveProperty('messageId');
    await smtp.waitFor(1);
  });

  it('notify: loopback detection decides whether plain SMTP is acceptable', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', 'LOCALHOST'])
      expect(isLoopbackHost(h)).toBe(true);
    for (const h of ['10.0.0.1', 'smtp.example.com', 'mailpit', '::', '128.0.0.1'])
      expect(isLoopbackHost(h)).toBe(false);
  });
});

describe("notify: operational webhook over Herald's HTTP sender", () => {
  const receiver = new Receiver();
  const dispatchers = new PinnedDispatchers();
  const send = createHttpSender({
    dispatchers,
    allowAddresses: parseCidrList(['127.0.0.1/32']),
    allowHttpHosts: ['127.0.0.1'],
    now,
  });
  const sendWebhook = createWebhookSenderFromHttpSender(send, { timeoutSeconds: 2 });
  const secret = generateSecret();
  let base = '';

  beforeAll(async () => {
    base = await receiver.start();
  });
  afterAll(async () => {
    await dispatchers.close();
    await receiver.stop();
  });
  afterEach(() => {
    receiver.requests.length = 0;
    receiver.respondWith((_r, _i, res) => res.writeHead(200).end('ok'));
  });

  it('R-BIRD-HEALTH: endpoint.paused is delivered signed, verifiable with the standardwebhooks package', async () => {
    const notifier = createNotifier({ sendWebhook, now });
    const res = await notifier.notify({
      notice: 'paused',
      ctx: ctx({ preset: 'bird', reason: 'http_500', episode: 7 }),
      operationalWebhook: { url: `${base}/ops`, secrets: [secret] },
    });
    expect(res).toEqual({ webhook: { ok: true } });
    const [req] = receiver.requests;
    expect(req!.path).toBe('/ops');
    const payload = new Webhook(secret).verify(req!.body, flatHeaders(req!.headers));
    expect(payload).toEqual({
      type: 'endpoint.paused',
      timestamp: '2025-06-01T12:00:00.000Z',
      data: {
        endpointId: 'ep_42',
        url: 'https://hooks.example.com/orders',
        reason: 'http_500',
        episode: 7,
        at: '2025-06-01T12:00:00.000Z',
      },
    });
    expect(req!.headers['webhook-id']).toBe('evt_op_ep_42_paused_7');
  });

  it('R-DT-HEALTH: a repeated notify of the same episode sends the same webhook-id and body; a new episode a new id', async () => {
    const notifier = createNotifier({ sendWebhook, now });
    const target = { url: `${base}/ops`, secrets: [secret] };
    const c = ctx({ preset: 'dongtien', reason: 'consecutive_failures', episode: 2 });
    await notifier.notify({ notice: 'suspended', ctx: c, operationalWebhook: target });
    await notifier.notify({ notice: 'suspended', ctx: c, operationalWebhook: target });
    await notifier.notify({ notice: 'suspended', ctx: { ...c, episode: 3 }, operationalWebhook: target });
    const [a, b, n] = receiver.requests;
    expect(a!.headers['webhook-id']).toBe('evt_op_ep_42_suspended_2');
    expect(b!.headers['webhook-id']).toBe(a!.headers['webhook-id']);
    expect(b!.body).toBe(a!.body);
    expect(n!.headers['webhook-id']).toBe('evt_op_ep_42_suspended_3');
    for (const r of [a, b, n]) {
      expect(new Webhook(secret).verify(r!.body, flatHeaders(r!.headers))).toMatchObject({
        type: 'endpoint.suspended',
      });
    }
  });

  it('R-SMENGO-HEALTH: email and operational webhook go out together; one failing does not stop the other', async () => {
    const port = await freePort();
    const down = createSmtpMailer({ host: '127.0.0.1', port, from: FROM });
    try {
      const res = await createNotifier({ mailer: down, sendWebhook, now }).notify({
        notice: 'disabled',
        ctx: ctx(),
        emailTo: 'billing@acme.test',
        operationalWebhook: { url: `${base}/ops`, secrets: [secret] },
      });
      expect(res.webhook).toEqual({ ok: true });
      expect(res.email).toHaveProperty('error');
      expect(JSON.parse(receiver.requests[0]!.body)).toMatchObject({
        type: 'endpoint.disabled',
        data: { reason: 'gone' },
      });
    } finally {
      down.close();
    }
  });

  it('notify: both old and new secrets sign during rotation', async () => {
    const next = generateSecret();
    await createNotifier({ sendWebhook, now }).notify({
      notice: 'recovered',
      ctx: ctx(),
      operationalWebhook: { url: `${base}/ops`, secrets: [secret, next] },
    });
    const [req] = receiver.requests;
    for (const s of [secret, next])
      expect(new Webhook(s).verify(req!.body, flatHeaders(req!.headers))).toBeTruthy();
  });

  it('notify: a non-2xx answer is returned as a failed webhook, not thrown', async () => {
    receiver.respondWith((_r, _i, res) => res.writeHead(503).end('busy'));
    const res = await createNotifier({ sendWebhook, now }).notify({
      notice: 'degraded',
      ctx: ctx(),
      operationalWebhook: { url: `${base}/ops`, secrets: [secret] },
    });
    expect(res.webhook).toEqual({ ok: false, code: 'http_503' });
    expect(isPermanentWebhookCode('http_503')).toBe(false);
  });

  it('notify: a slow receiver times out within the adapter timeout', async () => {
    receiver.respondWith(() => new Promise(() => {}));
    const res = await createNotifier({ sendWebhook, now }).notify({
      notice: 'degraded',
      ctx: ctx(),
      operationalWebhook: { url: `${base}/slow`, secrets: [secret] },
    });
    expect(res.webhook).toEqual({ ok: false, code: 'timeout' });
  });

  it('notify: the operational URL gets the same R-URL and R-SSRF checks: refused, nothing sent', async () => {
    const notifier = createNotifier({ sendWebhook, now });
    const port = new URL(base).port;
    const cases: Array<[string, string]> = [
      [`http://localhost:${port}/ops`, 'not_https'], // plain http only for operator-trusted hosts
      [`https://127.0.0.2:${port}/ops`, 'port_not_allowed'],
      ['https://127.0.0.2/ops', 'private_address'], // loopback outside the allowlist
      ['https://10.1.2.3/ops', 'private_address'],
    ];
    for (const [url, code] of cases) {
      const res = await notifier.notify({
        notice: 'disabled',
        ctx: ctx(),
        operationalWebhook: { url, secrets: [secret] },
      });
      expect(res.webhook, url).toEqual({ ok: false, code });
    }
    expect(receiver.requests).toHaveLength(0);
    expect(isPermanentWebhookCode('not_https')).toBe(true);
  });

  it('notify: missing or malformed secrets and a missing sender are reported, not thrown', async () => {
    const url = `${base}/ops`;
    const withSender = createNotifier({ sendWebhook, now });
    expect(
      (await withSender.notify({ notice: 'disabled', ctx: ctx(), operationalWebhook: { url, secrets: [] } }))
        .webhook,
    ).toEqual({
      ok: false,
      code: 'no_signing_secret',
    });
    expect(
      (
        await withSender.notify({
          notice: 'disabled',
          ctx: ctx(),
          operationalWebhook: { url, secrets: ['not-a-secret'] },
        })
      ).webhook,
    ).toEqual({ ok: false, code: 'invalid_secret' });
    expect(
      (
        await createNotifier({ now }).notify({
          notice: 'disabled',
          ctx: ctx(),
          operationalWebhook: { url, secrets: [secret] },
        })
      ).webhook,
    ).toEqual({ ok: false, code: 'webhook_not_configured' });
    expect(receiver.requests).toHaveLength(0);
  });

  it('notify: a sender that throws is caught', async () => {
    const res = await createNotifier({
      sendWebhook: () => Promise.reject(new Error('boom')),
      now,
    }).notify({
      notice: 'disabled',
      ctx: ctx(),
      operationalWebhook: { url: `${base}/ops`, secrets: [secret] },
    });
    expect(res.webhook).toEqual({ ok: false, code: 'webhook_error' });
  });

  it('notify: an invalid change time falls back to the clock instead of failing', async () => {
    const fixed = new Date('2025-07-04T00:00:00.000Z');
    await createNotifier({ sendWebhook, now: () => fixed }).notify({
      notice: 'recovered',
      ctx: ctx({ at: Number.NaN }),
      operationalWebhook: { url: `${base}/ops`, secrets: [secret] },
    });
    expect(JSON.parse(receiver.requests[0]!.body).timestamp).toBe('2025-07-04T00:00:00.000Z');
  });
});
