import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { HERALD_SEARCH_ATTRIBUTES } from '../../src/shared/search-attributes.js';
import { configSchema, HERALD_VARIABLES_READ_ELSEWHERE } from '../../src/config.js';
import { readEnvFiles } from '../../scripts/stack/env-file.js';
import { SERVICE_ENV_FILES, TOPOLOGY, heraldNodeArgs, type ServiceName } from '../../scripts/stack/services.js';
import { TEMPORAL_SERVER_VERSION, TEMPORAL_UI_SERVER_VERSION } from '../../scripts/server-paths.mjs';

// Docker cannot run where the tests run, so the stack is checked as data: every
// reference between services, files and the application must resolve.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (rel: string): string => readFileSync(join(ROOT, rel), 'utf8');

interface Service {
  image?: string;
  build?: string | { context?: string; dockerfile?: string };
  command?: string | string[];
  entrypoint?: string | string[];
  environment?: Record<string, string | number | boolean | null> | string[];
  env_file?: string | string[];
  depends_on?: string[] | Record<string, { condition?: string }>;
  volumes?: (string | { type?: string; source?: string; target?: string })[];
  ports?: (string | number | { target?: number; published?: string | number })[];
  healthcheck?: { test?: string | string[] };
  profiles?: string[];
}

// `merge: true` resolves the `<<: *anchor` keys compose files use for shared environments.
const compose = parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, Service> };
const services = compose.services;

function service(name: string): Service {
  const s = services[name];
  if (!s) throw new Error(`docker-compose.yml has no service ${name}`);
  return s;
}

function envFiles(s: Service): string[] {
  return s.env_file === undefined ? [] : Array.isArray(s.env_file) ? s.env_file : [s.env_file];
}

/** The service's environment as compose loads it: its env files, then `environment:` on top. */
function env(s: Service): Record<string, string> {
  return { ...readEnvFiles(envFiles(s).map((f) => join(ROOT, f))), ...ownEnv(s) };
}

function ownEnv(s: Service): Record<string, string> {
  const e = s.environment ?? {};
  if (Array.isArray(e)) {
    return Object.fromEntries(
      e.map((line) => {
        const i = line.indexOf('=');
        return i < 0 ? [line, ''] : [line.slice(0, i), line.slice(i + 1)];
      }),
    );
  }
  return Object.fromEntries(Object.entries(e).map(([k, v]) => [k, v == null ? '' : String(v)]));
}

function dependsOn(s: Service): Record<string, string | undefined> {
  const d = s.depends_on ?? [];
  if (Array.isArray(d)) return Object.fromEntries(d.map((n) => [n, undefined]));
  return Object.fromEntries(Object.entries(d).map(([n, v]) => [n, v.condition]));
}

function words(x: string | string[] | undefined): string[] {
  if (x === undefined) return [];
  return Array.isArray(x) ? x : x.split(/\s+/).filter(Boolean);
}

/** Host paths of bind mounts (`./x:/y[:ro]` or long syntax), relative to the repo root. */
function bindSources(s: Service): { source: string; target: string }[] {
  return (s.volumes ?? []).flatMap((v) => {
    if (typeof v === 'string') {
      const [source = '', target = ''] = v.split(':');
      return source.startsWith('.') || source.startsWith('/') ? [{ source, target }] : [];
    }
    return v.type === 'bind' && v.source ? [{ source: v.source, target: v.target ?? '' }] : [];
  });
}

/** Everything a one-shot job executes: its command plus the scripts mounted for it. */
function jobText(s: Service): string {
  const mounted = bindSources(s)
    .filter((m) => statSync(join(ROOT, m.source)).isFile())
    .map((m) => read(m.source));
  return [...words(s.entrypoint), ...words(s.command), ...mounted].join('\n');
}

/** The value of `${NAME...}` if the string is exactly one compose interpolation. */
function interpolation(value: string | undefined): { name: string; op: string } | undefined {
  const m = /^\$\{([A-Z0-9_]+)(?:(:?[-?+])[^}]*)?\}$/.exec(value ?? '');
  return m ? { name: m[1] ?? '', op: m[2] ?? '' } : undefined;
}

const HERALD = ['herald-worker', 'herald-api'] as const;
const SEARCH_ATTRIBUTES = [
  'HeraldTenant',
  'HeraldEndpoint',
  'HeraldEventType',
  'HeraldStatus',
  'HeraldEventId',
  'HeraldPreset',
];

describe('docker-compose stack', () => {
  it('foundation: defines the Temporal, PostgreSQL, UI and Herald services', () => {
    for (const name of ['postgresql', 'temporal', 'temporal-ui', 'herald-worker', 'herald-api']) {
      expect(services, name).toHaveProperty(name);
    }
  });

  it('foundation: every depends_on names a service, and service_healthy ones have a healthcheck', () => {
    for (const [name, s] of Object.entries(services)) {
      for (const [dep, condition] of Object.entries(dependsOn(s))) {
        expect(services, `${name} depends on ${dep}`).toHaveProperty(dep);
        if (condition === 'service_healthy') {
          expect(service(dep).healthcheck?.test, `${dep} needs a healthcheck for ${name}`).toBeDefined();
        }
        // A service in a profile is not started by default, so nothing default may wait on it.
        if (!s.profiles) expect(service(dep).profiles, `${name} waits on ${dep}`).toBeUndefined();
      }
    }
  });

  it('foundation: PostgreSQL keeps its data in a named volume and reports health', () => {
    const pg = service('postgresql');
    expect(pg.image).toMatch(/^postgres:/);
    const volumes = (pg.volumes ?? []).map(String);
    const data = volumes.find((v) => v.endsWith(':/var/lib/postgresql/data'));
    expect(data, 'postgres data volume').toBeDefined();
    const volumeName = data?.split(':')[0] ?? '';
    expect((parse(read('docker-compose.yml')) as { volumes?: object }).volumes).toHaveProperty(volumeName);
    expect(words(pg.healthcheck?.test).join(' ')).toContain('pg_isready');
  });

  it('foundation: Temporal runs on PostgreSQL with a mounted dynamic config file', () => {
    const t = service('temporal');
    expect(t.image).toMatch(/^temporalio\/(server|auto-setup):/);
    const e = env(t);
    expect(e.DB).toBe('postgres12');
    expect(e.POSTGRES_SEEDS).toBe('postgresql');
    expect(dependsOn(t).postgresql).toBe('service_healthy');
    // Same database password on both sides, taken from one variable.
    expect(e.POSTGRES_PWD).toBe(env(service('postgresql')).POSTGRES_PASSWORD);

    const file = e.DYNAMIC_CONFIG_FILE_PATH ?? '';
    const mount = bindSources(t).find((m) => file.startsWith(`${m.target}/`) || file === m.target);
    expect(mount, `a bind mount providing ${file}`).toBeDefined();
    const hostPath =
      mount && file !== mount.target ? join(mount.source, file.slice(mount.target.length)) : '';
    expect(hostPath.startsWith('deploy/temporal/') || hostPath.startsWith('./deploy/temporal/')).toBe(true);
    const dynamic = parse(read(hostPath)) as Record<string, { value: unknown }[]>;
    expect(dynamic['limit.maxIDLength']?.[0]?.value).toBe(255);
    expect(dynamic).not.toHaveProperty('system.forceSearchAttributesCacheRefreshOnRead');
  });

  it('foundation: Temporal schema is created before the server starts', () => {
    const deps = dependsOn(service('temporal'));
    const job = Object.entries(deps).find(([, c]) => c === 'service_completed_successfully')?.[0];
    expect(job, 'a one-shot schema job').toBeDefined();
    const text = jobText(service(job ?? ''));
    expect(text).toContain('temporal-sql-tool');
    for (const db of ['temporal', 'temporal_visibility']) expect(text).toContain(db);
    expect(text).toContain('update-schema');
  });

  it('foundation: the Web UI points at the Temporal frontend on port 8080', () => {
    const ui = service('temporal-ui');
    expect(ui.image).toMatch(/^temporalio\/ui:/);
    expect(env(ui).TEMPORAL_ADDRESS).toBe('temporal:7233');
    expect((ui.ports ?? []).map(String).some((p) => /(^|:)8080:8080$/.test(p))).toBe(true);
    expect(dependsOn(ui)).toHaveProperty('temporal');
  });

  it('foundation: a one-shot job registers every Herald search attribute as Keyword', () => {
    const setupName = Object.keys(dependsOn(service('herald-worker'))).find((d) =>
      jobText(service(d)).includes('search-attribute create'),
    );
    expect(setupName, 'the worker waits for the search-attribute job').toBeDefined();
    const setup = service(setupName ?? '');
    expect(setup.image).toMatch(/^temporalio\/admin-tools:/);
    expect(env(setup).TEMPORAL_ADDRESS).toBe('temporal:7233');
    expect(dependsOn(setup).temporal).toBe('service_healthy');

    const text = jobText(setup);
    const registered = [
      ...text.matchAll(/search-attribute create\b[^\n]*--name\s+(\w+)\s+--type\s+(\w+)/g),
    ].map((m) => [m[1], m[2]]);
    for (const name of SEARCH_ATTRIBUTES) expect(registered, name).toContainEqual([name, 'Keyword']);
    // The application's own list (src/shared/search-attributes.ts) must not drift from the stack.
    expect(new Set(registered.map(([n]) => n))).toEqual(new Set(HERALD_SEARCH_ATTRIBUTES.map((k) => k.name)));
    // Registered in the namespace the Herald services use.
    expect(env(setup).TEMPORAL_NAMESPACE).toBe('default');
  });

  it('foundation: worker and API are built from the repo Dockerfile and start the right entry points', () => {
    const PRELOAD = '--require=./scripts/workflow-thread-preload.cjs';
    const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    const entry = { 'herald-worker': 'src/worker.ts', 'herald-api': 'src/api/server.ts' };
    const images = new Set<string | undefined>();
    for (const name of HERALD) {
      const s = service(name);
      const build = typeof s.build === 'string' ? { context: s.build } : (s.build ?? {});
      expect(build.context, `${name} build context`).toBe('.');
      expect(build.dockerfile ?? 'Dockerfile').toBe('Dockerfile');
      images.add(s.image);
      // The same heap cap as `npm start` (README: the worker's RSS under a backlog), and for
      // the worker the same workflow-thread preload (issue 16).
      const flags = ['--max-old-space-size=320', '--single-threaded', ...(name === 'herald-worker' ? [PRELOAD] : [])];
      expect(words(s.command)).toEqual(['node', ...flags, '--import', 'tsx', entry[name]]);
      // `npm run stack` starts the same service with the same arguments.
      expect(['node', ...heraldNodeArgs(name)]).toEqual(words(s.command));
    }
    expect(images.size, 'one image for both').toBe(1);
    // The same entry points the npm scripts run, so the two cannot drift apart.
    expect(pkg.scripts.start).toContain(`tsx --max-old-space-size=320 --single-threaded ${PRELOAD} src/main.ts`);
    expect(pkg.scripts.worker).toBe(`tsx --max-old-space-size=320 --single-threaded ${PRELOAD} src/worker.ts`);
    expect(pkg.scripts.api).toBe('tsx --max-old-space-size=320 --single-threaded src/api/server.ts');
    // The image's own command, run by `docker run` without compose, is compose's worker to
    // the letter: without the heap cap a worker held 1,292 MB with 3,000 deliveries asleep
    // (BENCHMARKS.md), and the image has the preload's file.
    const dockerfile = read('Dockerfile');
    const cmd = /^CMD (\[.*\])$/m.exec(dockerfile)?.[1];
    expect(cmd && (JSON.parse(cmd) as string[])).toEqual(words(service('herald-worker').command));
    expect(dockerfile).toContain('COPY scripts/workflow-thread-preload.cjs ./scripts/');
  });

  it('foundation: worker and API reach Temporal and get their secrets from the environment only', () => {
    for (const name of HERALD) {
      const s = service(name);
      const e = env(s);
      expect(e.TEMPORAL_ADDRESS, name).toBe('temporal:7233');
      expect(e.TEMPORAL_NAMESPACE, name).toBe('default');
      expect(e.HERALD_TASK_QUEUE, name).toBe('herald');
      for (const secret of ['HERALD_OPERATOR_KEY', 'HERALD_CODEC_KEYS']) {
        // `${X:?message}`: compose refuses to start without it; no default value to leak.
        expect(interpolation(e[secret]), `${name} ${secret}`).toEqual({ name: secret, op: ':?' });
      }
      const deps = dependsOn(s);
      expect(Object.values(deps)).toContain('service_completed_successfully');
    }
    for (const [name, s] of Object.entries(services)) {
      for (const [key, value] of Object.entries(env(s))) {
        if (/PASSWORD|PWD|KEY|SECRET/.test(key)) {
          expect(interpolation(value)?.op, `${name} ${key} must be a required variable`).toBe(':?');
        }
      }
    }
  });

  it("foundation: the API listens on the container's interfaces, published on the host's loopback only", () => {
    const api = service('herald-api');
    const e = env(api);
    expect(e.HERALD_API_HOST).toBe('0.0.0.0');
    const port = e.HERALD_API_PORT ?? '3000';
    // Issue 13.9: plain HTTP; a TLS-terminating proxy on the host forwards to it.
    expect((api.ports ?? []).map(String)).toContainEqual(`127.0.0.1:${port}:${port}`);
    expect(words(api.healthcheck?.test).join(' ')).toContain(`:${port}/`);
  });

  it('foundation: every bind-mounted file exists in the repo', () => {
    for (const [name, s] of Object.entries(services)) {
      for (const { source } of bindSources(s))
        expect(existsSync(join(ROOT, source)), `${name}: ${source}`).toBe(true);
    }
  });

  it('foundation: Dockerfile installs with npm ci on node:20-slim and runs unprivileged', () => {
    const dockerfile = read('Dockerfile');
    const lines = dockerfile.split('\n').filter((l) => !l.trimStart().startsWith('#'));
    const instr = (re: RegExp) => lines.filter((l) => re.test(l));
    expect(instr(/^FROM\s/)[0]).toMatch(/^FROM\s+node:20-slim\b/);
    const ci = instr(/^RUN\s.*\bnpm ci\b/);
    expect(ci).toHaveLength(1);
    // tsx is a devDependency the containers need at run time.
    expect(ci[0]).not.toMatch(/--omit[= ]dev|--production/);
    expect(instr(/^COPY\s+src\b/)).toHaveLength(1);
    const users = instr(/^USER\s/);
    expect(users.at(-1)).toMatch(/^USER\s+(?!root\b|0\b)\S+/);

    const ignored = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim());
    for (const entry of ['node_modules', '.git']) expect(ignored).toContain(entry);
  });

  it('19: each service reads the same env files as `npm run stack` does', () => {
    for (const [name, files] of Object.entries(SERVICE_ENV_FILES)) {
      expect(envFiles(service(name)), name).toEqual(files);
      for (const f of files) expect(existsSync(join(ROOT, f)), f).toBe(true);
    }
  });

  it("19: compose's own environment names only addresses, ports, paths and secrets", () => {
    for (const name of Object.keys(SERVICE_ENV_FILES) as ServiceName[]) {
      const extra = Object.keys(ownEnv(service(name))).filter((k) => !TOPOLOGY[name].includes(k));
      expect(extra, `${name}: settings belong in ${SERVICE_ENV_FILES[name].join(', ')}`).toEqual([]);
    }
  });

  it('19: every HERALD_* setting in the env files is one Herald reads', () => {
    const known = new Set([...Object.keys(configSchema.shape), ...HERALD_VARIABLES_READ_ELSEWHERE]);
    for (const name of ['herald-worker', 'herald-api'] as const) {
      const names = Object.keys(readEnvFiles(SERVICE_ENV_FILES[name].map((f) => join(ROOT, f))));
      for (const n of names) expect(known.has(n), `${name}: ${n}`).toBe(true);
    }
  });

  it('19: compose pins the Temporal server and Web UI releases the stack builds and tests', () => {
    const version = (image: string | undefined) => /:\$\{[A-Z_]+:-([^}]+)\}$/.exec(image ?? '')?.[1];
    expect(`v${version(service('temporal').image)}`).toBe(TEMPORAL_SERVER_VERSION);
    expect(`v${version(service('temporal-schema').image)}`).toBe(TEMPORAL_SERVER_VERSION);
    expect(`v${version(service('herald-temporal-setup').image)}`).toBe(TEMPORAL_SERVER_VERSION);
    expect(`v${version(service('temporal-ui').image)}`).toBe(TEMPORAL_UI_SERVER_VERSION);
  });
});

describe('issue 20: compose asks each Herald process whether it is ready, not only alive', () => {
  it('issue 20: the worker checks /readyz on its metrics port and the API /readyz on its own', () => {
    const port = String(configSchema.parse({}).HERALD_METRICS_PORT);
    const check = (name: string) => [service(name).healthcheck?.test ?? []].flat().join(' ');
    expect(check('herald-worker')).toContain(`http://127.0.0.1:${port}/readyz`);
    expect(check('herald-api')).toContain('http://127.0.0.1:3000/readyz');
  });
});
