import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

// Issue 13.9: the stack serves plain HTTP (the API) and unauthenticated services (Temporal's
// frontend and Web UI); none of them may listen on the host's public interfaces.

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
type Port = string | number | { target?: number; published?: string | number; host_ip?: string };
const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, { ports?: Port[] }>;
};

const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[?::1\]?)$/;

/** The host address a published port binds to; undefined means all interfaces. */
function hostIp(p: Port): string | undefined {
  if (typeof p === 'number') return undefined;
  if (typeof p === 'object') return p.host_ip;
  // [HOST:]PUBLISHED:TARGET[/proto]; an IPv6 host is bracketed.
  const spec = p.split('/')[0] ?? '';
  const v6 = /^\[([^\]]+)\]:/.exec(spec);
  if (v6) return `[${v6[1]}]`;
  const parts = spec.split(':');
  return parts.length >= 3 ? parts[0] : undefined;
}

describe('13.9 compose publishes nothing on all interfaces', () => {
  it('13.9: every published port of every service binds to loopback', () => {
    const published = Object.entries(compose.services).flatMap(([name, s]) =>
      (s.ports ?? []).map((p) => ({
        name,
        port: String(typeof p === 'object' ? JSON.stringify(p) : p),
        ip: hostIp(p),
      })),
    );
    expect(published.map((p) => p.name)).toContain('herald-api');
    const open = published.filter((p) => !p.ip || !LOOPBACK.test(p.ip));
    expect(open, 'ports published on all interfaces').toEqual([]);
  });

  it('13.9: the file says which ports must never be exposed and that TLS is terminated in front of the API', () => {
    const text = readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8');
    expect(text).toMatch(/TLS-terminating/);
    for (const port of ['7233', '8080', '3001']) expect(text).toContain(port);
    expect(text).toMatch(/[Nn]ever expose/);
  });
});
