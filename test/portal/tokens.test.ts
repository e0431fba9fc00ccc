import { describe, expect, it } from 'vitest';
import { UsedLinks } from '../../src/portal/links-route.js';
import { PortalTokens } from '../../src/portal/tokens.js';

/** Issue 18: the portal's stateless credentials, signed with HERALD_PORTAL_SECRET. */
describe('18 portal tokens', () => {
  const tokens = new PortalTokens('s'.repeat(40));
  const now = Date.now();

  it('18 a session reads back on any process with the same secret, and on none with another', () => {
    const { token } = tokens.issueSession({
      role: 'tenant',
      tenantId: 'tn_a',
      keyId: 'key_1',
      exp: now + 60_000,
    });
    expect(new PortalTokens('s'.repeat(40)).readSession(token)).toMatchObject({
      tenantId: 'tn_a',
      keyId: 'key_1',
    });
    expect(new PortalTokens('t'.repeat(40)).readSession(token)).toBeUndefined();
  });

  it('18 a session whose claims were edited, or that expired, is refused', () => {
    const { token } = tokens.issueSession({
      role: 'tenant',
      tenantId: 'tn_a',
      keyId: 'key_1',
      exp: now + 60_000,
    });
    const [p, body, mac] = token.split('.');
    const claims = JSON.parse(Buffer.from(body!, 'base64url').toString()) as Record<string, unknown>;
    const edited = Buffer.from(JSON.stringify({ ...claims, tenantId: 'tn_b' })).toString('base64url');
    expect(tokens.readSession(`${p}.${edited}.${mac}`)).toBeUndefined();
    expect(tokens.readSession(token, now + 61_000)).toBeUndefined();
  });

  it('18 a portal link is not a session, nor a session a link; an expired link says so', () => {
    const link = tokens.issueLink('tn_a', 'key_1', now + 60_000);
    expect(tokens.readSession(link)).toBeUndefined();
    const { token } = tokens.issueSession({
      role: 'tenant',
      tenantId: 'tn_a',
      keyId: 'key_1',
      exp: now + 60_000,
    });
    expect(tokens.readLink(token)).toEqual({ ok: false, reason: 'forged' });
    expect(tokens.readLink(link, now + 61_000)).toEqual({ ok: false, reason: 'expired' });
    expect(tokens.readLink(link)).toMatchObject({ ok: true, claims: { tenantId: 'tn_a', keyId: 'key_1' } });
  });

  it("18 a CSRF token belongs to one session: another session's, or none, is refused", () => {
    const csrf = tokens.csrfFor('sid-1');
    expect(tokens.checkCsrf('sid-1', csrf)).toBe(true);
    expect(tokens.checkCsrf('sid-2', csrf)).toBe(false);
    expect(tokens.checkCsrf('sid-1', undefined)).toBe(false);
    expect(tokens.checkCsrf('sid-1', '')).toBe(false);
  });

  it('18 a link nonce is claimed once', () => {
    const used = new UsedLinks();
    expect(used.claim('n1')).toBe(true);
    expect(used.claim('n1')).toBe(false);
    expect(used.claim('n2')).toBe(true);
  });
});
