import { describe, expect, it } from 'vitest';
import { loadConfig, withDevDefaults } from '../../../src/config.js';

/**
 * Issue 13.3 (R-SSRF, R-URL): `npm start`'s development allowances (loopback receivers,
 * plain http, the codec endpoint) apply only when Herald runs its embedded Temporal server
 * AND its API listens on loopback. Anywhere else they are the operator's explicit choice.
 */
const ALLOWANCES = ['HERALD_ALLOW_ADDRESSES', 'HERALD_ALLOW_HTTP_HOSTS', 'HERALD_CODEC_ENDPOINT'] as const;
const LOOPBACK_API_HOSTS = ['127.0.0.1', '::1', 'localhost'];
const applied = (env: Record<string, string>) => {
  const out = withDevDefaults(env);
  return ALLOWANCES.filter((k) => out[k] !== undefined && env[k] === undefined);
};

describe('13.3 R-SSRF: development allowances stay out of real deployments', () => {
  it('13.3 R-SSRF: none is applied when TEMPORAL_ADDRESS names a cluster, whatever HERALD_API_HOST says', () => {
    for (const host of [undefined, ...LOOPBACK_API_HOSTS]) {
      const env = { TEMPORAL_ADDRESS: 'temporal.internal:7233', ...(host ? { HERALD_API_HOST: host } : {}) };
      expect(applied(env), `HERALD_API_HOST=${host}`).toEqual([]);
    }
  });

  it('13.3 R-SSRF: none is applied when the API listens beyond loopback (0.0.0.0, ::, a LAN address)', () => {
    for (const host of ['0.0.0.0', '::', '192.168.1.10', 'herald.internal']) {
      expect(applied({ HERALD_API_HOST: host }), `HERALD_API_HOST=${host}`).toEqual([]);
    }
    // What the worker and API then read: no loopback receiver, no plain http.
    const c = loadConfig(withDevDefaults({ HERALD_API_HOST: '0.0.0.0' }));
    expect(c.HERALD_ALLOW_ADDRESSES).toEqual([]);
    expect(c.HERALD_ALLOW_HTTP_HOSTS).toEqual([]);
  });

  it('13.3 R-SSRF: all are applied with the embedded server and the API on loopback, and only then', () => {
    for (const host of [undefined, ...LOOPBACK_API_HOSTS]) {
      const env: Record<string, string> = host ? { HERALD_API_HOST: host } : {};
      expect(applied(env), `HERALD_API_HOST=${host}`).toEqual([...ALLOWANCES]);
      // The same environment pointed at a cluster gets none of them.
      expect(applied({ ...env, TEMPORAL_ADDRESS: '127.0.0.1:7233' }), `cluster, HERALD_API_HOST=${host}`).toEqual([]);
    }
    const c = loadConfig(withDevDefaults({}));
    expect(c.HERALD_ALLOW_ADDRESSES).toEqual(['127.0.0.1/32', '::1/128']);
    expect(c.HERALD_ALLOW_HTTP_HOSTS).toEqual(['127.0.0.1', 'localhost', '[::1]']);
  });

  it('13.3 R-SSRF: outside the embedded loopback case only what the operator sets explicitly applies', () => {
    const env = { TEMPORAL_ADDRESS: 'temporal.internal:7233', HERALD_ALLOW_HTTP_HOSTS: 'receiver.test' };
    const c = loadConfig(withDevDefaults(env));
    expect(c.HERALD_ALLOW_HTTP_HOSTS).toEqual(['receiver.test']);
    expect(c.HERALD_ALLOW_ADDRESSES).toEqual([]);
    expect(c.HERALD_CODEC_ENDPOINT).toBe(false);
  });
});
