import type { createHttpSender } from '../activities/http-sender.js';
import type { Mailer } from './mailer.js';
import { heraldMetrics, type HeraldMetrics } from '../observability/metrics.js';
import {
  isoTime,
  operationalEventId,
  operationalEventType,
  operationalPayload,
  renderEmail,
  type Notice,
  type NoticeContext,
} from './notices.js';

export interface OperationalWebhookRequest {
  url: string;
  secrets: string[];
  /** The exact JSON text to send and sign. */
  body: string;
  /** Becomes `webhook-id`; deterministic per notification so receivers can dedupe. */
  eventId: string;
  /** Event type (`endpoint.disabled`, ...), for the envelope; optional for other callers. */
  type?: string;
  /** ISO time the event occurred. */
  occurredAt?: string;
}

export type SendWebhook = (req: OperationalWebhookRequest) => Promise<{ ok: boolean; code?: string }>;

export interface NotifierDeps {
  mailer?: Mailer;
  sendWebhook?: SendWebhook;
  now: () => Date;
  /** Issue 20: notices sent and failed, by channel; the process's registry by default. */
  metrics?: HeraldMetrics;
}

export type EmailOutcome = { messageId: string } | { error: string; detail?: string };
export type WebhookOutcome = { ok: boolean; code?: string };

export interface NotifyArgs {
  notice: Notice;
  ctx: NoticeContext;
  /** The tenant's billing address, else the endpoint creator's (R-SMENGO-HEALTH). Absent: no email. */
  emailTo?: string;
  operationalWebhook?: { url: string; secrets: string[] };
}

export interface NotifyResult {
  email?: EmailOutcome;
  webhook?: WebhookOutcome;
}

/** Email error codes that a retry cannot fix (configuration or a permanent SMTP refusal). */
export function isPermanentEmailError(error: string): boolean {
  return (
    error === 'smtp_not_configured' ||
    error === 'invalid_recipient' ||
    error === 'render_failed' ||
    /^smtp_rejected_5\d\d$/.test(error)
  );
}

/** Webhook codes that a retry cannot fix. Everything else (timeouts, 5xx, network) may pass later. */
export function isPermanentWebhookCode(code: string | undefined): boolean {
  return (
    code === 'webhook_not_configured' ||
    code === 'no_signing_secret' ||
    code === 'invalid_secret' ||
    code === 'not_https' ||
    code === 'port_not_allowed' ||
    code === 'userinfo_not_allowed' ||
    code === 'fragment_not_allowed' ||
    code === 'invalid_url' ||
    code === 'url_too_long' ||
    code === 'url_too_short'
  );
}

// One address, no display name, no list: `a@b, c@d` would otherwise mail a second party.
const SINGLE_ADDRESS = /^[^\s@,;<>()"[\]\\]+@[^\s@,;<>()"[\]\\]+\.[^\s@,;<>()"[\]\\]+$/;

/**
 * Sends one health notification by email and, when the tenant configured one, by
 * operational webhook; both at once, independently. Never throws: each channel's
 * failure is returned so the calling Temporal activity decides what to retry.
 *
 * A retried activity that sends both channels again resends a message that may already
 * have arrived; the webhook carries the same `webhook-id` and the email the same
 * Message-ID, so receivers can drop the duplicate. Callers that want no duplicate at
 * all retry only the channel that failed (pass `emailTo` or `operationalWebhook` alone).
 */
export function createNotifier(deps: NotifierDeps) {
  async function sendEmail(notice: Notice, ctx: NoticeContext, to: string): Promise<EmailOutcome> {
    if (!deps.mailer) return { error: 'smtp_not_configured' };
    const address = to.trim();
    if (!SINGLE_ADDRESS.test(address) || address.length > 254) return { error: 'invalid_recipient' };
    let mail: { subject: string; text: string };
    try {
      mail = renderEmail(notice, ctx);
    } catch (err) {
      return { error: 'render_failed', detail: messageOf(err) };
    }
    try {
      const sent = await deps.mailer.send({
        to: address,
        subject: mail.subject,
        text: mail.text,
        dedupeKey: operationalEventId(notice, ctx),
      });
      return { messageId: sent.messageId };
    } catch (err) {
      return { error: smtpErrorCode(err), detail: messageOf(err) };
    }
  }

  async function sendHook(
    notice: Notice,
    ctx: NoticeContext,
    target: { url: string; secrets: string[] },
  ): Promise<WebhookOutcome> {
    if (!deps.sendWebhook) return { ok: false, code: 'webhook_not_configured' };
    // Operational webhooks are always signed: an unsigned one would let anyone who learns
    // the URL forge "endpoint disabled" messages.
    if (!Array.isArray(target.secrets) || target.secrets.length === 0)
      return { ok: false, code: 'no_signing_secret' };
    try {
      const body = operationalPayload(notice, ctx);
      const res = await deps.sendWebhook({
        url: target.url,
        secrets: target.secrets,
        body,
        eventId: operationalEventId(notice, ctx),
        type: operationalEventType(notice),
        occurredAt: isoTime(ctx.at),
      });
      return res.code === undefined ? { ok: res.ok } : { ok: res.ok, code: res.code };
    } catch (err) {
      // The signer throws on a malformed secret; anything else is unexpected.
      return { ok: false, code: /secret/i.test(messageOf(err)) ? 'invalid_secret' : 'webhook_error' };
    }
  }

  return {
    async notify(args: NotifyArgs): Promise<NotifyResult> {
      // A bad clock value must not stop the notification: fall back to the current time.
      const ctx: NoticeContext = Number.isFinite(args.ctx.at)
        ? args.ctx
        : { ...args.ctx, at: deps.now().getTime() };
      const [email, webhook] = await Promise.all([
        args.emailTo !== undefined ? sendEmail(args.notice, ctx, args.emailTo) : undefined,
        args.operationalWebhook ? sendHook(args.notice, ctx, args.operationalWebhook) : undefined,
      ]);
      const result: NotifyResult = {};
      const metrics = deps.metrics ?? heraldMetrics;
      if (email) metrics.notices.inc({ channel: 'email', result: 'messageId' in email ? 'sent' : 'failed' });
      if (webhook) metrics.notices.inc({ channel: 'webhook', result: webhook.ok ? 'sent' : 'failed' });
      if (email) result.email = email;
      if (webhook) result.webhook = webhook;
      return result;
    },
  };
}

export type Notifier = ReturnType<typeof createNotifier>;

export interface WebhookAdapterOptions {
  /** Per-request timeout. Default 10 s: an operational receiver needs no more. */
  timeoutSeconds?: number;
  /** Header carrying `<eventId>:1`. Default `Webhook-Delivery-Id`. */
  deliveryIdHeader?: string;
}

/**
 * Adapts Herald's delivery sender to `sendWebhook`, so operational webhooks get the same
 * URL check (R-URL), SSRF-safe pinned connection (R-SSRF), Standard Webhooks signature
 * and timeouts as ordinary deliveries.
 */
export function createWebhookSenderFromHttpSender(
  send: ReturnType<typeof createHttpSender>,
  opts: WebhookAdapterOptions = {},
): SendWebhook {
  return async (req) => {
    const result = await send({
      // The event id doubles as delivery id: stable across retries, like the webhook-id.
      deliveryId: req.eventId,
      attempt: 1,
      event: {
        id: req.eventId,
        type: req.type ?? 'endpoint.notification',
        occurredAt: req.occurredAt ?? new Date().toISOString(),
        body: req.body,
      },
      target: { url: req.url, secrets: req.secrets },
      timeoutSeconds: opts.timeoutSeconds ?? 10,
      deliveryIdHeader: opts.deliveryIdHeader ?? 'Webhook-Delivery-Id',
    });
    const ok =
      result.code === undefined &&
      result.httpStatus !== undefined &&
      result.httpStatus >= 200 &&
      result.httpStatus < 300;
    return ok ? { ok } : { ok, code: result.code ?? (result.deferral ? result.deferral.code : 'not_sent') };
  };
}

/**
 * Stable code for a nodemailer failure: `smtp_rejected_<nnn>` for a permanent (5xx)
 * server reply, `smtp_deferred_<nnn>` for a temporary (4xx) one, else `smtp_<code>`
 * from nodemailer (`smtp_econnection`, `smtp_etimedout`, `smtp_eauth`, ...).
 */
function smtpErrorCode(err: unknown): string {
  const e = err as { responseCode?: unknown; code?: unknown } | undefined;
  const rc = typeof e?.responseCode === 'number' ? e.responseCode : undefined;
  if (rc !== undefined && rc >= 500 && rc < 600) return `smtp_rejected_${rc}`;
  if (rc !== undefined && rc >= 400 && rc < 500) return `smtp_deferred_${rc}`;
  if (typeof e?.code === 'string' && /^[A-Za-z0-9_]+$/.test(e.code)) return `smtp_${e.code.toLowerCase()}`;
  return 'smtp_error';
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
