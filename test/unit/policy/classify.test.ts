import { describe, it, expect } from 'vitest';
import { classifyError, classifyResponse, type AttemptOutcome } from '../../../src/policy/classify.js';
import {
  PRESETS,
  PRESET_NAMES,
  PolicyError,
  resolvePolicy,
  type PresetName,
} from '../../../src/policy/policy.js';

const codeFor = (s: number) =>
  s === 410 ? 'gone' : s >= 300 && s < 400 ? 'redirect_not_allowed' : `http_${s}`;

// SPEC §3 rows "retried responses" / "non-retried response", written out
// independently of the presets' grammar strings.
function expectedOutcome(preset: PresetName, s: number): AttemptOutcome {
  if (s >= 200 && s < 300) return { kind: 'success' };
  const code = codeFor(s);
  switch (preset) {
    case 'standard':
    case 'dongtien':
      return s === 410
        ? { kind: 'gone', code: 'gone', disableEndpoint: true, status: 'exhausted' }
        : { kind: 'retry', code };
    case 'smengo':
      return s === 410
        ? { kind: 'gone', code: 'gone', disableEndpoint: true, status: 'dead' }
        : { kind: 'retry', code };
    case 'railhook':
      return s === 408 || s === 429 || (s >= 500 && s <= 599)
        ? { kind: 'retry', code }
        : { kind: 'dead_letter', code };
    case 'bird':
      return { kind: 'retry', code };
  }
}

describe('R-STATUS response classification per preset', () => {
  it.each(PRESET_NAMES)('R-STATUS: %s classifies every status 100-599 as its §3 column says', (name) => {
    for (let s = 100; s <= 599; s++) {
      expect(classifyResponse(PRESETS[name], s), `status ${s}`).toEqual(expectedOutcome(name, s));
    }
  });

  it('R-HDR: a 2xx is success whatever the list says', () => {
    const p = resolvePolicy('railhook', { retryableStatuses: '2xx,5xx' });
    expect(classifyResponse(p, 200)).toEqual({ kind: 'success' });
    expect(classifyResponse(p, 299)).toEqual({ kind: 'success' });
  });

  it('R-SMENGO-HEALTH: smengo 410 kills the delivery (gone) and disables the endpoint', () => {
    expect(classifyResponse(PRESETS.smengo, 410)).toEqual({
      kind: 'gone',
      code: 'gone',
      disableEndpoint: true,
      status: 'dead',
    });
  });

  it('R-DT-HEALTH: dongtien 410 disables the endpoint and dead-letters the event instead of dropping it', () => {
    expect(classifyResponse(PRESETS.dongtien, 410)).toEqual({
      kind: 'gone',
      code: 'gone',
      disableEndpoint: true,
      status: 'exhausted',
    });
  });

  it('R-RH-GRAMMAR: railhook 410 follows the list: dead letter by default, retried when listed', () => {
    expect(classifyResponse(PRESETS.railhook, 410)).toEqual({ kind: 'dead_letter', code: 'gone' });
    expect(classifyResponse(resolvePolicy('railhook', { retryableStatuses: '4xx' }), 410)).toEqual({
      kind: 'retry',
      code: 'gone',
    });
  });

  it('R-RH-GRAMMAR: a custom railhook list changes what is retried', () => {
    const catchingUp = resolvePolicy('railhook', { retryableStatuses: '>=500,408,429,409' });
    expect(classifyResponse(catchingUp, 409)).toEqual({ kind: 'retry', code: 'http_409' });
    expect(classifyResponse(catchingUp, 404)).toEqual({ kind: 'dead_letter', code: 'http_404' });
    const final5xx = resolvePolicy('railhook', { retryableStatuses: '408,429' });
    expect(classifyResponse(final5xx, 500)).toEqual({ kind: 'dead_letter', code: 'http_500' });
    const not501 = resolvePolicy('railhook', { retryableStatuses: '5xx,!501' });
    expect(classifyResponse(not501, 501)).toEqual({ kind: 'dead_letter', code: 'http_501' });
    expect(classifyResponse(not501, 502)).toEqual({ kind: 'retry', code: 'http_502' });
  });

  it('R-SMENGO-HEALTH: a status-list override cannot make smengo retry a 410', () => {
    const p = resolvePolicy('smengo', { retryableStatuses: '4xx' });
    expect(classifyResponse(p, 410)).toMatchObject({ kind: 'gone', status: 'dead' });
  });
});

describe('R-NOREDIR', () => {
  it('R-NOREDIR: a 3xx is a failed attempt with redirect_not_allowed, retried except on railhook', () => {
    for (const s of [301, 302, 303, 307, 308]) {
      expect(classifyResponse(PRESETS.standard, s)).toEqual({ kind: 'retry', code: 'redirect_not_allowed' });
      expect(classifyResponse(PRESETS.smengo, s)).toEqual({ kind: 'retry', code: 'redirect_not_allowed' });
      expect(classifyResponse(PRESETS.railhook, s)).toEqual({
        kind: 'dead_letter',
        code: 'redirect_not_allowed',
      });
    }
  });
});

describe('R-ERRCODES', () => {
  it('R-ERRCODES: response codes are http_<status>, redirect_not_allowed and gone', () => {
    expect(classifyResponse(PRESETS.standard, 500)).toEqual({ kind: 'retry', code: 'http_500' });
    expect(classifyResponse(PRESETS.standard, 429)).toEqual({ kind: 'retry', code: 'http_429' });
    expect(classifyResponse(PRESETS.bird, 410)).toEqual({ kind: 'retry', code: 'gone' });
  });

  it('R-ERRCODES: a status outside 100-599 is treated like a 500 but keeps its number', () => {
    expect(classifyResponse(PRESETS.standard, 600)).toEqual({ kind: 'retry', code: 'http_600' });
    expect(classifyResponse(PRESETS.railhook, 999)).toEqual({ kind: 'retry', code: 'http_999' });
    expect(classifyResponse(resolvePolicy('railhook', { retryableStatuses: '408,429' }), 600)).toEqual({
      kind: 'dead_letter',
      code: 'http_600',
    });
  });

  it('R-ERRCODES: a non-integer or negative status is a caller bug', () => {
    expect(() => classifyResponse(PRESETS.standard, 500.5)).toThrow(RangeError);
    expect(() => classifyResponse(PRESETS.standard, -1)).toThrow(RangeError);
  });
});

describe('R-TIMEOUT / R-SSRF / R-URL error classification', () => {
  const transport = [
    'timeout',
    'dns_failed',
    'network_ECONNRESET',
    'network_ECONNREFUSED',
    'network_EPROTO',
    'transformation_failed',
  ];

  it.each(PRESET_NAMES)(
    'R-TIMEOUT: %s retries timeouts, DNS, network/TLS and transformation failures',
    (name) => {
      for (const code of transport)
        expect(classifyError(PRESETS[name], code)).toEqual({ kind: 'retry', code });
    },
  );

  it('R-RH-TRANSFORM: a failed transformation is retried on railhook', () => {
    expect(classifyError(PRESETS.railhook, 'transformation_failed')).toEqual({
      kind: 'retry',
      code: 'transformation_failed',
    });
  });

  it('R-SSRF: railhook fails a private address without an attempt; the others spend it and retry', () => {
    expect(classifyError(PRESETS.railhook, 'private_address')).toEqual({
      kind: 'failed',
      code: 'private_address',
    });
    expect(classifyError(INBOUND(), 'private_address')).toEqual({ kind: 'failed', code: 'private_address' });
    for (const name of ['standard', 'smengo', 'bird', 'dongtien'] as const) {
      expect(classifyError(PRESETS[name], 'private_address')).toEqual({
        kind: 'retry',
        code: 'private_address',
      });
    }
    function INBOUND() {
      return resolvePolicy('railhook', undefined, 'inbound');
    }
  });

  it.each([
    'not_https',
    'port_not_allowed',
    'userinfo_not_allowed',
    'fragment_not_allowed',
    'invalid_url',
    'url_too_long',
    'url_too_short',
  ])('R-URL: %s at send time: railhook failed, others retried', (code) => {
    expect(classifyError(PRESETS.railhook, code)).toEqual({ kind: 'failed', code });
    for (const name of ['standard', 'smengo', 'bird', 'dongtien'] as const) {
      expect(classifyError(PRESETS[name], code)).toEqual({ kind: 'retry', code });
    }
  });

  it('R-CRASH: an unknown error code is retried, never dropped', () => {
    expect(classifyError(PRESETS.railhook, 'something_new')).toEqual({
      kind: 'retry',
      code: 'something_new',
    });
  });

  it('R-ERRCODES: http_<status> and gone codes go through the response rules', () => {
    expect(classifyError(PRESETS.railhook, 'http_404')).toEqual({ kind: 'dead_letter', code: 'http_404' });
    expect(classifyError(PRESETS.railhook, 'http_503')).toEqual({ kind: 'retry', code: 'http_503' });
    expect(classifyError(PRESETS.smengo, 'gone')).toMatchObject({ kind: 'gone', status: 'dead' });
  });

  it.each([
    'subscription_inactive',
    'endpoint_disabled',
    'endpoint_paused',
    'lease_expired',
    'lifetime_exceeded',
  ])('R-ERRCODES: %s is a deferral/terminal mark, not an attempt outcome', (code) => {
    expect(() => classifyError(PRESETS.standard, code)).toThrow(PolicyError);
  });

  it('R-NOREDIR: redirect_not_allowed needs the status to classify', () => {
    expect(() => classifyError(PRESETS.standard, 'redirect_not_allowed')).toThrow(PolicyError);
    expect(() => classifyError(PRESETS.standard, '')).toThrow(PolicyError);
  });
});
