import { defaultPayloadConverter } from '@temporalio/common';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import { ConfigError, configSchema, loadConfig } from '../../../src/config.js';
import * as codecModule from '../../../src/temporal/codec.js';
import * as dataConverterModule from '../../../src/temporal/data-converter.js';

// Issue 13.1 (§4 Operators: secrets never appear in plaintext in workflow history).

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const read = (rel: string) => readFileSync(join(ROOT, rel), 'utf8');

/** Every HERALD_* name the compose file sets in any service's environment. */
function composeHeraldVariables(): string[] {
  const compose = parse(read('docker-compose.yml'), { merge: true }) as {
    services: Record<string, { environment?: Record<string, unknown> | string[] }>;
  };
  const names = Object.values(compose.services).flatMap((s) => {
    const e = s.environment ?? {};
    return Array.isArray(e) ? e.map((line) => line.split('=')[0] ?? '') : Object.keys(e);
  });
  return [...new Set(names.filter((n) => n.startsWith('HERALD_')))].sort();
}

/** Every HERALD_* name deploy/herald.env.example sets or documents (commented-out lines too). */
function envExampleHeraldVariables(): string[] {
  const names = read('deploy/herald.env.example')
    .split('\n')
    .map((l) => /^#?\s*(HERALD_[A-Z0-9_]+)=/.exec(l.trim())?.[1])
    .filter((n): n is string => n !== undefined);
  return [...new Set(names)].sort();
}

// The herald-temporal-setup job is an admin-tools container, not Herald: its own variables.
const NOT_READ_BY_HERALD = new Set(['HERALD_RETENTION']);

describe('13.1 the production stack encrypts history (§4 operators: no secret in plaintext in history)', () => {
  it('13.1: every HERALD_* variable docker-compose.yml and deploy/herald.env.example set is a configSchema key', () => {
    const known = new Set(Object.keys(configSchema.shape));
    const set = [...composeHeraldVariables(), ...envExampleHeraldVariables()].filter(
      (n) => !NOT_READ_BY_HERALD.has(n),
    );
    expect(set.length).toBeGreaterThan(3);
    expect(set.filter((n) => !known.has(n))).toEqual([]);
    // The codec keys, by the name the application reads, reach both Herald services.
    expect(composeHeraldVariables()).toContain('HERALD_CODEC_KEYS');
    expect(envExampleHeraldVariables()).toContain('HERALD_CODEC_KEYS');
  });

  it('13.1: the compose environment, as loaded, gives worker and API a codec', () => {
    const compose = parse(read('docker-compose.yml'), { merge: true }) as {
      services: Record<string, { environment?: Record<string, string> }>;
    };
    const key = codecModule.generateCodecKey();
    for (const name of ['herald-worker', 'herald-api']) {
      const env = Object.fromEntries(
        Object.entries(compose.services[name]?.environment ?? {}).map(([k, v]) => [
          k,
          // `${NAME:?message}` interpolations: what the operator puts in .env.
          String(v).replace(/^\$\{([A-Z0-9_]+)[^}]*\}$/, (_, n: string) =>
            n === 'HERALD_CODEC_KEYS'
              ? key
              : n === 'HERALD_OPERATOR_KEY'
                ? 'operator-key-0123456789'
                : 'info',
          ),
        ]),
      );
      const config = loadConfig(env);
      expect(
        dataConverterModule.dataConverterFor(config)?.payloadCodecs?.length ?? 0,
        `${name}: payload codecs`,
      ).toBe(1);
    }
  });

  it('13.1: an unknown HERALD_* variable stops start-up, named, with the closest known one suggested', () => {
    const key = codecModule.generateCodecKey();
    expect(() => loadConfig({ HERALD_CODEC_KEY: key })).toThrow(ConfigError);
    expect(() => loadConfig({ HERALD_CODEC_KEY: key })).toThrow(
      /HERALD_CODEC_KEY: unknown variable \(did you mean HERALD_CODEC_KEYS\?\)/,
    );
    expect(() => loadConfig({ HERALD_API_PROT: '3000' })).toThrow(
      /HERALD_API_PROT.*did you mean HERALD_API_PORT\?/,
    );
    // Far from every known name: named, without a misleading suggestion.
    let message = '';
    try {
      loadConfig({ HERALD_SOMETHING_ELSE_ENTIRELY: '1' });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain('HERALD_SOMETHING_ELSE_ENTIRELY: unknown variable');
    expect(message).not.toContain('did you mean');
    // Other programs' variables are none of Herald's business.
    expect(() =>
      loadConfig({ PATH: '/usr/bin', NODE_ENV: 'production', HERALD_CACHE_DIR: '/tmp/x' }),
    ).not.toThrow();
  });

  it('13.1: a worker or API on a cluster it did not start refuses to run without codec keys', () => {
    const { assertHistoryEncrypted } = dataConverterModule;
    expect(typeof assertHistoryEncrypted).toBe('function');
    const onCluster = loadConfig({ TEMPORAL_ADDRESS: 'temporal:7233' });
    expect(() => assertHistoryEncrypted(onCluster, () => undefined)).toThrow(ConfigError);
    expect(() => assertHistoryEncrypted(onCluster, () => undefined)).toThrow(/HERALD_CODEC_KEYS/);
    // With keys, or with the embedded server (which makes its own), it starts.
    const keyed = loadConfig({
      TEMPORAL_ADDRESS: 'temporal:7233',
      HERALD_CODEC_KEYS: codecModule.generateCodecKey(),
    });
    expect(() => assertHistoryEncrypted(keyed, () => undefined)).not.toThrow();
    expect(() => assertHistoryEncrypted(loadConfig({}), () => undefined)).not.toThrow();
    // The only way round is explicit, and it is said out loud at start.
    const warn = vi.fn();
    const allowed = loadConfig({ TEMPORAL_ADDRESS: 'temporal:7233', HERALD_ALLOW_PLAINTEXT_HISTORY: 'true' });
    expect(() => assertHistoryEncrypted(allowed, warn)).not.toThrow();
    expect(warn).toHaveBeenCalledWith(expect.stringMatching(/plaintext/));
  });

  it('13.1: the codec refuses to decode an unencrypted payload unless HERALD_CODEC_ACCEPT_PLAINTEXT is set', async () => {
    const plain = defaultPayloadConverter.toPayload({ target: { secrets: ['whsec_injected'] } });
    const strict = dataConverterModule.dataConverterFor(
      loadConfig({ HERALD_CODEC_KEYS: codecModule.generateCodecKey() }),
    );
    await expect(strict!.payloadCodecs![0]!.decode([plain])).rejects.toThrow(/unencrypted/);
    const migrating = dataConverterModule.dataConverterFor(
      loadConfig({
        HERALD_CODEC_KEYS: codecModule.generateCodecKey(),
        HERALD_CODEC_ACCEPT_PLAINTEXT: 'true',
      }),
    );
    const [decoded] = await migrating!.payloadCodecs![0]!.decode([plain]);
    expect(defaultPayloadConverter.fromPayload(decoded!)).toEqual({
      target: { secrets: ['whsec_injected'] },
    });
  });
});
