import { describe, it, expect } from 'vitest';
import {
  MAX_URL_LENGTH,
  MIN_URL_LENGTH,
  checkEndpointUrl,
  type UrlErrorCode,
} from '../../../src/policy/url-check.js';

function codeOf(raw: string, opts?: Parameters<typeof checkEndpointUrl>[1]): UrlErrorCode | 'ok' {
  const r = checkEndpointUrl(raw, opts);
  if (!r.ok) expect(r.message.length).toBeGreaterThan(0);
  return r.ok ? 'ok' : r.code;
}

describe('R-URL accepted URLs', () => {
  it.each([
    'https://example.com/hook',
    'https://example.com',
    'https://example.com:8443/hook',
    'https://example.com:443/hook',
    'https://hooks.example.com/a/b?x=1&y=2',
    'https://xn--nxasmq6b.com/hook',
    'https://[2606:4700::1111]/hook',
    'https://a.b',
  ])('R-URL: %s is accepted', (raw) => {
    expect(codeOf(raw)).toBe('ok');
  });

  it('R-URL: the parsed URL is returned (default port normalised away)', () => {
    const r = checkEndpointUrl('https://EXAMPLE.com:443/Hook?q=1');
    expect(r.ok && r.url.href).toBe('https://example.com/Hook?q=1');
  });
});

describe('R-URL rejected URLs', () => {
  it.each<[string, UrlErrorCode]>([
    ['http://example.com/hook', 'not_https'],
    ['ftp://example.com/hook', 'not_https'],
    ['wss://example.com/hook', 'not_https'],
    ['javascript:alert(1)//x', 'not_https'],
    ['https://example.com:8080/hook', 'port_not_allowed'],
    ['https://example.com:22/hook', 'port_not_allowed'],
    ['https://example.com:80/hook', 'port_not_allowed'],
    ['https://user:pw@example.com/hook', 'userinfo_not_allowed'],
    ['https://user@example.com/hook', 'userinfo_not_allowed'],
    ['https://:pw@example.com/hook', 'userinfo_not_allowed'],
    ['https://@example.com/hook', 'userinfo_not_allowed'],
    ['https://example.com/hook#frag', 'fragment_not_allowed'],
    ['https://example.com/hook#', 'fragment_not_allowed'],
    ['not a url at all', 'invalid_url'],
    ['example.com/hook', 'invalid_url'],
    ['https://exa mple.com/hook', 'invalid_url'],
    ['https://example.com/ho\nok', 'invalid_url'],
    [' https://example.com/hook', 'invalid_url'],
    ['https:example.com/hook', 'invalid_url'],
    ['https:///example.com/hook', 'invalid_url'],
    ['https://./hook', 'invalid_url'],
    ['https://.../hook', 'invalid_url'],
    ['https://exa<mple.com/hook', 'invalid_url'],
    ['https://[::1/hook', 'invalid_url'],
  ])('R-URL: %s -> %s', (raw, code) => {
    expect(codeOf(raw)).toBe(code);
  });

  it('R-URL: at most 2048 characters', () => {
    const prefix = 'https://example.com/';
    const exact = prefix + 'a'.repeat(MAX_URL_LENGTH - prefix.length);
    expect(exact).toHaveLength(2048);
    expect(codeOf(exact)).toBe('ok');
    expect(codeOf(exact + 'a')).toBe('url_too_long');
  });

  it('R-URL: shorter than https://a.b (11 chars) is url_too_short', () => {
    expect(MIN_URL_LENGTH).toBe(11);
    for (const raw of ['', 'h', 'https://', 'https://a', 'https://ab'])
      expect(codeOf(raw)).toBe('url_too_short');
  });
});

describe('R-URL options', () => {
  it('R-URL: allowedPorts replaces the default set', () => {
    expect(codeOf('https://example.com:9443/x', { allowedPorts: [9443] })).toBe('ok');
    expect(codeOf('https://example.com:8443/x', { allowedPorts: [9443] })).toBe('port_not_allowed');
    expect(codeOf('https://example.com/x', { allowedPorts: [] })).toBe('ok');
  });

  it('R-URL: allowInsecureHosts admits plain http and any port for those hosts only', () => {
    const opts = { allowInsecureHosts: ['127.0.0.1', 'LocalHost', '[::1]'] };
    expect(codeOf('http://127.0.0.1:4123/hook', opts)).toBe('ok');
    expect(codeOf('https://127.0.0.1:4123/hook', opts)).toBe('ok');
    expect(codeOf('http://localhost:3000/hook', opts)).toBe('ok');
    expect(codeOf('http://[::1]:8080/hook', opts)).toBe('ok');
    expect(codeOf('http://127.0.0.2:4123/hook', opts)).toBe('not_https');
    expect(codeOf('http://127.0.0.1:4123/hook')).toBe('not_https');
    // The other shape rules still hold.
    expect(codeOf('http://u:p@127.0.0.1:4123/hook', opts)).toBe('userinfo_not_allowed');
    expect(codeOf('http://127.0.0.1:4123/hook#x', opts)).toBe('fragment_not_allowed');
    expect(codeOf('ftp://127.0.0.1:4123/hook', opts)).toBe('not_https');
  });

  it('R-URL: reservedPorts are refused for every host, allowInsecureHosts included, by effective port', () => {
    const opts = { allowInsecureHosts: ['127.0.0.1'], reservedPorts: [80, 3000, 8443] };
    expect(codeOf('http://127.0.0.1:3000/hook', opts)).toBe('port_not_allowed');
    expect(codeOf('http://127.0.0.1/hook', opts)).toBe('port_not_allowed');
    expect(codeOf('https://example.com:8443/hook', opts)).toBe('port_not_allowed');
    expect(codeOf('http://127.0.0.1:3002/hook', opts)).toBe('ok');
    expect(codeOf('https://example.com/hook', opts)).toBe('ok');
  });
});
