/**
 * What Herald tells a tenant when an endpoint's health changes (SPEC §4 "Notifications";
 * R-SMENGO-HEALTH, R-BIRD-HEALTH, R-DT-HEALTH), as an email and as an operational webhook.
 *
 * Pure functions: no I/O, no clock. Everything time-dependent comes from `ctx.at`, so a
 * retried notification renders byte-for-byte the same email and webhook body.
 */
import { BIRD_PAUSE_AFTER_DAYS } from '../health/bird.js';
import { DT_HOLD_DAYS, DT_HOLD_LIMIT } from '../health/dongtien.js';
import { BIRD_REPLAY_DAYS } from '../policy/presets.js';

export type Notice = 'disabled' | 'degraded' | 'suspended' | 'recovered' | 'paused';

export const NOTICES: readonly Notice[] = Object.freeze([
  'disabled',
  'degraded',
  'suspended',
  'recovered',
  'paused',
]);

export interface NoticeContext {
  tenantId: string;
  endpointId: string;
  url: string;
  /** Herald's stable code for why the state changed (`gone`, `http_500`, `timeout`, ...). */
  reason?: string;
  /** When the state changed, epoch ms. */
  at: number;
  /** Counts the endpoint's health periods; (endpointId, notice, episode) names one notification. */
  episode: number;
  preset: string;
  /** The tenant's own label for the endpoint. */
  description?: string;
}

export type OperationalEventType = `endpoint.${Notice}`;

const DAY_MS = 24 * 60 * 60 * 1000;
const SUBJECT_URL_MAX = 120;
const FIELD_MAX = 500;

const TITLES: Record<Notice, string> = {
  disabled: 'disabled',
  degraded: 'degraded',
  suspended: 'suspended',
  recovered: 'recovered',
  paused: 'paused',
};

export function operationalEventType(notice: Notice): OperationalEventType {
  return `endpoint.${notice}`;
}

/**
 * The operational webhook's event id. Deterministic per (endpoint, notice, episode): a
 * retried activity sends the same `webhook-id`, so receivers that dedupe on it (as
 * Standard Webhooks asks them to) act once per health change.
 */
export function operationalEventId(
  notice: Notice,
  ctx: Pick<NoticeContext, 'endpointId' | 'episode'>,
): string {
  return `evt_op_${ctx.endpointId}_${notice}_${ctx.episode}`;
}

/**
 * The operational webhook body, in the Standard Webhooks payload shape
 * `{ type, timestamp, data }`. `timestamp` is when the state changed (not when the
 * webhook was sent), so every retry carries an identical body for the same webhook-id.
 */
export function operationalPayload(notice: Notice, ctx: NoticeContext): string {
  const at = isoTime(ctx.at);
  return JSON.stringify({
    type: operationalEventType(notice),
    timestamp: at,
    data: {
      endpointId: ctx.endpointId,
      url: ctx.url,
      reason: ctx.reason ?? null,
      episode: ctx.episode,
      at,
    },
  });
}

export function renderEmail(notice: Notice, ctx: NoticeContext): { subject: string; text: string } {
  const url = oneLine(ctx.url);
  const label = ctx.description ? oneLine(ctx.description, 200) : undefined;
  const when = isoTime(ctx.at);
  const subjectUrl = url.length > SUBJECT_URL_MAX ? `${url.slice(0, SUBJECT_URL_MAX - 3)}...` : url;
  const subject = `[Herald] Webhook endpoint ${TITLES[notice]}: ${subjectUrl}`;

  const lines: string[] = [];
  lines.push(`${headline(notice)}`, '');
  lines.push(`Endpoint:    ${url}`);
  if (label) lines.push(`Label:       ${label}`);
  lines.push(`Endpoint id: ${oneLine(ctx.endpointId)}`);
  lines.push(`When:        ${when} (UTC)`);
  lines.push(`Reason:      ${reasonLine(ctx.reason)}`);
  lines.push('');
  lines.push('What this means', '---------------');
  lines.push(...meaning(notice, ctx));
  lines.push('');
  lines.push('What you can do', '---------------');
  lines.push(...actions(notice, ctx));
  lines.push('');
  lines.push(
    `You receive this email because you are the billing contact of this account or created this endpoint.`,
    `Reference: ${oneLine(ctx.tenantId)} / ${oneLine(ctx.endpointId)} / ${notice} #${ctx.episode}`,
  );
  return { subject: oneLine(subject, 250), text: lines.join('\n') + '\n' };
}

function headline(notice: Notice): string {
  switch (notice) {
    case 'disabled':
      return 'Herald has disabled one of your webhook endpoints. It receives no deliveries until you enable it again.';
    case 'suspended':
      return 'Herald has suspended one of your webhook endpoints. New events are being held for it, not lost.';
    case 'degraded':
      return 'One of your webhook endpoints is failing. It is now marked degraded but still receives deliveries.';
    case 'paused':
      return 'Herald has paused one of your webhook endpoints after about 5 days of failures. It receives no events now.';
    case 'recovered':
      return 'Good news: one of your webhook endpoints is accepting deliveries again.';
  }
}

function meaning(notice: Notice, ctx: NoticeContext): string[] {
  switch (notice) {
    case 'disabled':
      return disabledMeaning(ctx.preset);
    case 'suspended':
      return [
        `Deliveries to this endpoint stopped after repeated failed attempts. New events are still`,
        `accepted and held for it: up to ${DT_HOLD_LIMIT.toLocaleString('en-US')} events or ${DT_HOLD_DAYS} days from the suspension, that is`,
        `until ${isoTime(ctx.at + DT_HOLD_DAYS * DAY_MS)}. Past either limit, the remaining events go to the dead-letter`,
        `list and the endpoint is disabled.`,
      ];
    case 'degraded':
      return [
        `Deliveries to this endpoint are failing. Herald keeps sending new deliveries and retrying`,
        `failed ones, so nothing has been dropped yet. You get one email like this per degradation period.`,
        `If the failures continue without a single success for about ${BIRD_PAUSE_AFTER_DAYS} days (around`,
        `${isoTime(ctx.at + BIRD_PAUSE_AFTER_DAYS * DAY_MS)}), the endpoint will be paused and stop receiving events.`,
      ];
    case 'paused':
      return [
        `The endpoint receives no events while paused. Events that arrive while it is paused are never`,
        `attempted and cannot be replayed later. Deliveries that were still being retried have ended as`,
        `failed. A paused endpoint never resumes by itself.`,
      ];
    case 'recovered':
      return [`The endpoint is healthy again and deliveries are flowing normally.`];
  }
}

function disabledMeaning(preset: string): string[] {
  switch (preset) {
    case 'smengo':
      return [
        `Deliveries to this endpoint have stopped. Deliveries that were still pending were cancelled`,
        `and will not be sent after you enable the endpoint again.`,
      ];
    case 'dongtien':
      return [
        `Deliveries to this endpoint have stopped. Pending and held events were moved to the`,
        `dead-letter list, so nothing is lost: you can replay them once the endpoint is enabled.`,
      ];
    default:
      return [
        `Deliveries to this endpoint have stopped. Deliveries that could not be completed are kept in`,
        `the dead-letter list.`,
      ];
  }
}

function actions(notice: Notice, ctx: NoticeContext): string[] {
  switch (notice) {
    case 'disabled': {
      const steps = [
        `1. Fix the problem on your side (see the reason above).`,
        `2. Send a test delivery to the endpoint and check that it answers with a 2xx status.`,
        `3. Enable the endpoint again.`,
      ];
      if (ctx.preset === 'smengo') {
        steps.push(
          `4. Read the events you missed while it was disabled through the events API (GET /v1/events).`,
        );
      } else if (ctx.preset === 'dongtien' || ctx.preset === 'standard') {
        steps.push(`4. Retry or replay the dead-lettered deliveries.`);
      }
      return steps;
    }
    case 'suspended':
      return [
        `1. Fix the problem on your side (see the reason above).`,
        `2. Re-enable the endpoint. Held events are then delivered one at a time, oldest first.`,
        `   If the endpoint fails again, the drain stops and the endpoint is suspended again.`,
        `Re-enable before ${isoTime(ctx.at + DT_HOLD_DAYS * DAY_MS)} to avoid the endpoint being disabled.`,
      ];
    case 'degraded':
      return [
        `Fix your endpoint so it answers with a 2xx status. The degradation clears by itself with the`,
        `next successful delivery or a successful test delivery, or when you change the endpoint URL.`,
      ];
    case 'paused':
      return [
        `1. Fix the problem on your side (see the reason above).`,
        `2. Set the endpoint status back to active.`,
        `3. Replay the window of failed deliveries. A replay reaches back at most ${BIRD_REPLAY_DAYS} days,`,
        `   so replay soon: older failures can no longer be recovered that way.`,
      ];
    case 'recovered':
      return [`Nothing. If you changed anything to fix the endpoint, it worked.`];
  }
}

const REASONS: Record<string, string> = {
  gone: 'your endpoint answered 410 Gone',
  timeout: 'your endpoint did not answer within the attempt timeout',
  dns_failed: "the endpoint's host name could not be resolved",
  private_address: 'the endpoint resolves to a private or otherwise non-public address',
  redirect_not_allowed: 'your endpoint answered with a redirect, which Herald does not follow',
  not_https: 'the endpoint URL does not use https',
  port_not_allowed: 'the endpoint URL uses a port Herald does not send to',
  invalid_url: 'the endpoint URL is not valid',
  exhausted: 'a delivery used all its attempts without a 2xx response',
  attempts_exhausted: 'a delivery used all its attempts without a 2xx response',
  consecutive_failures: 'several attempts in a row failed',
  hold_limit_exceeded: `more than ${DT_HOLD_LIMIT.toLocaleString('en-US')} events were held`,
  hold_expired: `events were held for ${DT_HOLD_DAYS} days`,
  network_ECONNREFUSED: 'your server refused the connection',
  network_ECONNRESET: 'your server closed the connection before answering',
};

/** The reason code as given, plus a plain-English gloss when Herald knows the code. */
export function reasonLine(reason: string | undefined): string {
  if (!reason) return 'no reason was recorded';
  const code = oneLine(reason, FIELD_MAX);
  const gloss =
    REASONS[code] ??
    (/^http_(\d{3})$/.exec(code) ? `your endpoint answered HTTP ${code.slice(5)}` : undefined) ??
    (/^network_/.test(code)
      ? `a network error (${code.slice(8)}) while connecting to your endpoint`
      : undefined);
  return gloss ? `${code} (${gloss})` : code;
}

/** ISO 8601 in UTC; never throws, so a bad timestamp cannot stop a notification. */
export function isoTime(epochMs: number): string {
  const d = new Date(epochMs);
  return Number.isFinite(d.getTime()) ? d.toISOString() : 'an unknown time';
}

// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f\u2028\u2029]+/g;

/** One header- and line-safe field: control characters (CR/LF included) become spaces. */
function oneLine(s: string, max = 2048): string {
  const flat = String(s).replace(CONTROL_CHARS, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 3)}...` : flat;
}
