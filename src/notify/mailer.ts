import { isIP } from 'node:net';
import nodemailer from 'nodemailer';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /**
   * A stable key for this message (e.g. the notification's event id). The mailer turns it
   * into the Message-ID `<key@from-domain>`, so a resend after a retried activity carries
   * the same Message-ID and mail clients that dedupe on it show one message.
   */
  dedupeKey?: string;
}

export interface Mailer {
  send(mail: MailMessage): Promise<{ messageId: string }>;
}

export interface SmtpMailerOptions {
  host: string;
  port: number;
  /** Implicit TLS from the first byte (usually port 465). */
  secure?: boolean;
  from: string;
  auth?: { user: string; pass: string };
}

// Bounded so a black-holed SMTP server fails the notify activity well within its
// start-to-close timeout instead of hanging until Temporal gives up on it.
const CONNECTION_TIMEOUT_MS = 10_000;
const GREETING_TIMEOUT_MS = 10_000;
const SOCKET_TIMEOUT_MS = 30_000;
const DNS_TIMEOUT_MS = 10_000;

export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || /^::ffff:127\./.test(h);
  return false;
}

/**
 * Email over real SMTP with a pooled nodemailer transport (notifications come in bursts,
 * e.g. many endpoints of one receiver failing together, so connections are reused).
 *
 * TLS:
 * - `secure: true`: implicit TLS, certificate verified (nodemailer's default).
 * - loopback host, not secure: `ignoreTLS`. The connection never leaves the machine, so
 *   STARTTLS protects nothing, and local relays and test servers (mailpit, smtp-server)
 *   commonly offer STARTTLS with a self-signed certificate that would then fail the
 *   certificate check and block every notification.
 * - other hosts, not secure, with credentials: `requireTLS`, so the password and the
 *   tenant's details never cross a network in clear text; a server without STARTTLS is
 *   an error, not a silent downgrade.
 * - other hosts, not secure, no credentials: STARTTLS when the server offers it
 *   (nodemailer's default), for unauthenticated relays on a private network.
 */
export function createSmtpMailer(opts: SmtpMailerOptions): Mailer & { close(): void } {
  const loopback = isLoopbackHost(opts.host);
  const secure = opts.secure ?? false;
  const transport = nodemailer.createTransport({
    pool: true,
    host: opts.host,
    port: opts.port,
    secure,
    ignoreTLS: !secure && loopback,
    requireTLS: !secure && !loopback && opts.auth !== undefined,
    auth: opts.auth ? { user: opts.auth.user, pass: opts.auth.pass } : undefined,
    maxConnections: 3,
    maxMessages: 100,
    connectionTimeout: CONNECTION_TIMEOUT_MS,
    greetingTimeout: GREETING_TIMEOUT_MS,
    socketTimeout: SOCKET_TIMEOUT_MS,
    dnsTimeout: DNS_TIMEOUT_MS,
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  const fromDomain = /@([^>\s@]+)>?\s*$/.exec(opts.from)?.[1] ?? 'herald.invalid';

  return {
    async send(mail) {
      const info = await transport.sendMail({
        from: opts.from,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        messageId: mail.dedupeKey
          ? `<${mail.dedupeKey.replace(/[^A-Za-z0-9._-]/g, '_')}@${fromDomain}>`
          : undefined,
        // RFC 3834: machine-generated, so vacation responders stay quiet.
        headers: { 'Auto-Submitted': 'auto-generated' },
      });
      return { messageId: String(info.messageId) };
    },
    close() {
      transport.close();
    },
  };
}
