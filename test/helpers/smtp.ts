import type { AddressInfo } from 'node:net';
import { simpleParser, type AddressObject } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface CapturedMail {
  /** Envelope recipients (RCPT TO), i.e. who the mail was actually delivered to. */
  to: string[];
  /** The From header's address. */
  from: string;
  subject: string;
  text: string;
  /** Envelope sender (MAIL FROM). */
  envelopeFrom: string;
  messageId?: string;
  headers: Map<string, unknown>;
  /** The authenticated user, if the client logged in. */
  user?: string;
}

export interface TestSmtpServerOptions {
  /** Answer RCPT TO for matching addresses with this permanent error. */
  rejectRecipient?: (address: string) => boolean;
  /** Require these credentials when a client authenticates (authentication stays optional). */
  auth?: { user: string; pass: string };
}

/** A real SMTP server on 127.0.0.1 that records every message it accepts, parsed. */
export class TestSmtpServer {
  readonly messages: CapturedMail[] = [];
  private server?: SMTPServer;
  private waiters: Array<{ n: number; resolve: () => void }> = [];

  constructor(private readonly opts: TestSmtpServerOptions = {}) {}

  async start(port = 0): Promise<{ host: string; port: number }> {
    const { rejectRecipient, auth } = this.opts;
    const server = new SMTPServer({
      authOptional: true,
      // Plain text only: loopback traffic, and no certificate to manage in tests.
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      logger: false,
      // A pooled client keeps its connection open; don't make stop() wait 30 s for it.
      closeTimeout: 200,
      onAuth: (a, _session, cb) => {
        if (auth && (a.username !== auth.user || a.password !== auth.pass)) {
          cb(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
          return;
        }
        cb(null, { user: a.username });
      },
      onRcptTo: (address, _session, cb) => {
        if (rejectRecipient?.(address.address)) {
          cb(
            Object.assign(new Error(`5.1.1 <${address.address}>: Recipient address rejected`), {
              responseCode: 550,
            }),
          );
          return;
        }
        cb();
      },
      onData: (stream, session, cb) => {
        simpleParser(stream)
          .then((parsed) => {
            this.messages.push({
              to: session.envelope.rcptTo.map((r) => r.address),
              from: firstAddress(parsed.from),
              subject: parsed.subject ?? '',
              text: parsed.text ?? '',
              envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              messageId: parsed.messageId,
              headers: parsed.headers,
              user: typeof session.user === 'string' ? session.user : undefined,
            });
            this.wake();
            cb();
          })
          .catch((err: Error) => cb(err));
      },
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    // Connection-level errors (a client hanging up) are expected in tests; don't crash.
    server.on('error', () => {});
    const addr = server.server.address() as AddressInfo;
    this.lastPort = addr.port;
    return { host: '127.0.0.1', port: addr.port };
  }

  /** The port it listened on last, kept across stop() so a test can start it there again. */
  lastPort?: number;

  waitFor(n: number, timeoutMs = 10_000): Promise<void> {
    if (this.messages.length >= n) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`SMTP server got ${this.messages.length} of ${n} messages`)),
        timeoutMs,
      );
      this.waiters.push({
        n,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private wake(): void {
    const ready = this.waiters.filter((w) => this.messages.length >= w.n);
    this.waiters = this.waiters.filter((w) => this.messages.length < w.n);
    for (const w of ready) w.resolve();
  }
}

function firstAddress(from: AddressObject | AddressObject[] | undefined): string {
  const obj = Array.isArray(from) ? from[0] : from;
  return obj?.value[0]?.address ?? '';
}
