import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Portal credentials are stateless and signed with HERALD_PORTAL_SECRET, so any API process
 * of a deployment accepts what another one issued. Each purpose signs with its own derived
 * key: a link can never pass for a session, nor a session id for a CSRF token.
 */
export type Purpose = 'session' | 'link' | 'csrf';

const PREFIX: Record<Exclude<Purpose, 'csrf'>, string> = { session: 'hps', link: 'hpl' };

/** Who a session or link speaks for: a tenant through one of its API keys, or the operator. */
export interface SessionClaims {
  role: 'tenant' | 'operator';
  tenantId?: string;
  /** The API key that signed in (or asked for the link): revoking it ends the session. */
  keyId?: string;
  /** Random; what the CSRF token is bound to. */
  sid: string;
  /** Expiry, ms since the epoch. */
  exp: number;
}

export interface LinkClaims {
  tenantId: string;
  keyId: string;
  /** One-time: a used nonce is refused. */
  nonce: string;
  exp: number;
}

export class PortalTokens {
  private readonly keys: Record<Purpose, Buffer>;

  constructor(secret: string) {
    const derive = (p: Purpose) => createHmac('sha256', secret).update(`herald-portal/${p}`).digest();
    this.keys = { session: derive('session'), link: derive('link'), csrf: derive('csrf') };
  }

  private mac(purpose: Purpose, data: string): string {
    return createHmac('sha256', this.keys[purpose]).update(data).digest('base64url');
  }

  private sign(purpose: 'session' | 'link', claims: object): string {
    const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
    const head = `${PREFIX[purpose]}.${body}`;
    return `${head}.${this.mac(purpose, head)}`;
  }

  private open<T extends { exp: number }>(
    purpose: 'session' | 'link',
    token: string,
    now: number,
  ): { ok: true; claims: T } | { ok: false; reason: 'forged' | 'expired' } {
    const parts = token.split('.');
    if (parts.length !== 3 || parts[0] !== PREFIX[purpose]) return { ok: false, reason: 'forged' };
    const head = `${parts[0]}.${parts[1]}`;
    if (!sameText(this.mac(purpose, head), parts[2]!)) return { ok: false, reason: 'forged' };
    let claims: T;
    try {
      claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as T;
    } catch {
      return { ok: false, reason: 'forged' };
    }
    if (typeof claims.exp !== 'number' || claims.exp <= now) return { ok: false, reason: 'expired' };
    return { ok: true, claims };
  }

  issueSession(claims: Omit<SessionClaims, 'sid'>): { token: string; claims: SessionClaims } {
    const full = { ...claims, sid: randomBytes(16).toString('base64url') };
    return { token: this.sign('session', full), claims: full };
  }

  readSession(token: string | undefined, now = Date.now()): SessionClaims | undefined {
    if (!token) return undefined;
    const r = this.open<SessionClaims>('session', token, now);
    return r.ok ? r.claims : undefined;
  }

  issueLink(tenantId: string, keyId: string, exp: number): string {
    return this.sign('link', { tenantId, keyId, exp, nonce: randomBytes(16).toString('base64url') });
  }

  readLink(token: string, now = Date.now()) {
    return this.open<LinkClaims>('link', token, now);
  }

  /** The CSRF token of a session (or of a pre-session cookie on the sign-in forms). */
  csrfFor(bound: string): string {
    return this.mac('csrf', bound);
  }

  checkCsrf(bound: string | undefined, token: unknown): boolean {
    return !!bound && typeof token === 'string' && sameText(this.csrfFor(bound), token);
  }
}

export const isSessionToken = (token: string) => token.startsWith(`${PREFIX.session}.`);

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
