import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, existsSync, lstatSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Stack, type StackInfo } from '../scripts/stack/stack.js';
import { heraldNamed } from './event-names.js';
import { killGroupOnExit } from './kill-on-exit.js';
import { startNodeFlags } from '../scripts/npm-script-flags.js';
import { Pool } from 'undici';

export const OPERATOR_KEY = 'op_bench_key_0123456789abcdef';

/**
 * What every scenario talks to: Herald's API (tenants, endpoints, publishes), the Temporal
 * behind it (to read histories and visibility), and the processes whose CPU and memory the
 * bench reports. Two shapes: the embedded default (`BenchHerald`) and the production-shaped
 * stack (`StackHerald`, `--stack`).
 */
export abstract class HeraldTarget {
  abstract readonly label: string;
  private _pool?: Pool;

  /** `--herald-names-events`: publishes carry no event id; Herald makes one (bench/event-names.ts). */
  heraldNamesEvents = false;

  constructor(protected readonly connections = 64) {}

  abstract get apiUrl(): string;
  /** host:port of Temporal's frontend. */
  abstract get temporalAddress(): string;
  abstract get namespace(): string;
  /** The Temporal server's Prometheus /metrics, where this target has one the bench can read. */
  get serverMetricsUrl(): string | undefined {
    return undefined;
  }
  abstract start(): Promise<void>;
  abstract stop(): Promise<void>;
  /** What Herald said went wrong (its error lines, its exit), for a scenario that failed. */
  problems(): string[] {
    return [];
  }
  /** CPU seconds so far of Herald's processes (worker(s) and API). */
  abstract heraldCpuSeconds(): number;
  /** CPU seconds so far of the Temporal service, by part (dev server; or server and PostgreSQL). */
  abstract serverCpuParts(): Record<string, number>;
  /** Memory now: Herald's worker, the Temporal service, its database on disk. */
  abstract memorySample(): { workerRssMb: number; serverRssMb: number; sqliteMb: number };

  serverCpuSeconds(): number {
    return Object.values(this.serverCpuParts()).reduce((a, b) => a + b, 0);
  }

  get pool(): Pool {
    this._pool ??= new Pool(this.apiUrl, {
      connections: this.connections,
      pipelining: 1,
      keepAliveTimeout: 60_000,
    });
    return this._pool;
  }

  protected async closePool() {
    await this._pool?.close().catch(() => {});
  }

  /** One JSON call; throws with the problem body on an unexpected status. */
  async call<T>(
    method: string,
    path: string,
    key: string,
    body?: unknown,
    expect = [200, 201, 202],
  ): Promise<T> {
    const res = await this.pool.request({
      method: method as 'POST',
      path,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    if (!expect.includes(res.statusCode)) throw new Error(`${method} ${path}: ${res.statusCode} ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /** The operator key the admin API takes. */
  protected abstract get operatorKey(): string;

  async tenant(name: string): Promise<string> {
    return (await this.tenantWithId(name)).key;
  }

  async tenantWithId(name: string): Promise<{ key: string; tenantId: string }> {
    const r = await this.call<{ apiKey: string; tenant: { tenantId: string } }>(
      'POST',
      '/v1/admin/tenants',
      this.operatorKey,
      { name },
    );
    return { key: r.apiKey, tenantId: r.tenant.tenantId };
  }

  async endpoint(key: string, body: Record<string, unknown>): Promise<string> {
    const r = await this.call<{ endpoint: { endpointId: string } }>('POST', '/v1/endpoints', key, body);
    return r.endpoint.endpointId;
  }

  /** Publishes one event; resolves with the time the 202 arrived. */
  async publish(key: string, id: string, type: string): Promise<number> {
    return (await this.publishFull(key, id, type)).at;
  }

  /** Publishes one event; resolves with the time the 202 arrived and the deliveries it started. */
  async publishFull(key: string, id: string, type: string): Promise<{ at: number; deliveryIds: string[] }> {
    // A 503 says "retry the request": a well-behaved publisher sends the same id again.
    for (let attempt = 1; ; attempt++) {
      try {
        // A retry of a publish Herald names is a new event: what a failed first try started
        // arrives under an id no scenario looks up.
        const r = await this.call<{ eventId?: string; deliveries?: Array<{ id: string }> }>(
          'POST',
          '/v1/events',
          key,
          { ...(this.heraldNamesEvents ? {} : { id }), type, payload: { id, at: Date.now() } },
          [202],
        );
        if (this.heraldNamesEvents && r?.eventId) heraldNamed.set(id, r.eventId);
        return {
          at: performance.timeOrigin + performance.now(),
          deliveryIds: (r?.deliveries ?? []).map((d) => d.id),
        };
      } catch (err) {
        if (attempt >= 5 || !String(err).includes(': 503 ')) throw err;
        this.retried503++;
        await delay(500 * attempt);
      }
    }
  }

  /** Publishes answered 503 and sent again (reported, so a retry never hides an error). */
  retried503 = 0;
}

/**
 * `npm start`'s embedded default (dev server on SQLite, worker, API) in a fresh data dir.
 * `root` is the checkout whose Herald runs (`--herald-root`): the same harness then measures
 * another commit's code, started the way that commit's `npm start` starts it.
 */
export class BenchHerald extends HeraldTarget {
  readonly label: string;
  readonly dataDir = mkdtempSync(join(tmpdir(), 'herald-bench-'));
  readonly root: string;
  private child?: ChildProcess;
  private output = '';
  private forgetChild?: () => void;

  constructor(
    private readonly ports: { api: number; temporal: number; ui: number },
    private readonly extraEnv: Record<string, string> = {},
    connections = 64,
    root?: string,
  ) {
    super(connections);
    this.root = resolve(root ?? new URL('..', import.meta.url).pathname);
    this.label = root ? `embedded (${this.root})` : 'embedded';
  }

  get apiUrl() {
    return `http://127.0.0.1:${this.ports.api}`;
  }

  get temporalAddress() {
    return `127.0.0.1:${this.ports.temporal}`;
  }

  get namespace() {
    return 'default';
  }

  /** The embedded dev server's metrics port (src/own-ports.ts: the frontend's port + 11). */
  override get serverMetricsUrl() {
    return `http://127.0.0.1:${this.ports.temporal + 11}/metrics`;
  }

  protected get operatorKey() {
    return OPERATOR_KEY;
  }

  async start() {
    const env: Record<string, string | undefined> = {
      ...process.env,
      HERALD_DATA_DIR: this.dataDir,
      HERALD_API_PORT: String(this.ports.api),
      HERALD_TEMPORAL_PORT: String(this.ports.temporal),
      HERALD_TEMPORAL_UI_PORT: String(this.ports.ui),
      HERALD_OPERATOR_KEY: OPERATOR_KEY,
      HERALD_LOG_LEVEL: 'warn',
      // The Web UI's codec listener has a fixed port; a bench needs neither.
      HERALD_CODEC_ENDPOINT: 'false',
      ...this.extraEnv,
    };
    delete env.TEMPORAL_ADDRESS;
    // BENCH_NODE_ARGS: extra flags for the Herald process, e.g. `--cpu-prof` to profile it.
    const nodeArgs = [
      ...startNodeFlags(this.root),
      ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean),
    ];
    this.child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'src/main.ts'], {
      cwd: this.root,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.forgetChild = killGroupOnExit(this.child);
    const keep = (d: Buffer) => {
      this.output = (this.output + d.toString()).slice(-20_000);
      if (process.env.BENCH_VERBOSE) process.stderr.write(d);
    };
    this.child.stdout!.on('data', keep);
    this.child.stderr!.on('data', keep);
    const deadline = Date.now() + 180_000;
    while (Date.now() < deadline) {
      if (this.child.exitCode !== null) throw new Error(`herald exited during start-up:\n${this.output}`);
      if (this.output.includes('worker polling')) {
        const ok = await fetch(`${this.apiUrl}/healthz`).then(
          (r) => r.ok,
          () => false,
        );
        if (ok) return;
      }
      await delay(250);
    }
    throw new Error(`herald did not come up:\n${this.output}`);
  }

  get temporalPort() {
    return this.ports.temporal;
  }

  override problems(): string[] {
    const said = this.output.split('\n').filter((l) => /"level":"(error|fatal)"|stopping/.test(l));
    const code = this.child?.exitCode ?? this.child?.signalCode;
    return [...said.slice(-5), ...(code !== null && code !== undefined ? [`herald exited: ${code}`] : [])];
  }

  /** Worker + API process (they share one in the embedded default). */
  get pid() {
    return this.child!.pid!;
  }

  heraldCpuSeconds() {
    return cpuSeconds(this.pid);
  }

  serverCpuParts() {
    return { server: cpuSeconds(this.devServerPid()) };
  }

  memorySample() {
    return {
      workerRssMb: rssMb(this.pid),
      serverRssMb: rssMb(this.devServerPid()),
      sqliteMb: this.sqliteBytes() / 1e6,
    };
  }

  /** The Temporal dev server: the `temporal` process under the Herald process (behind the sh that ties its life to Herald's). */
  devServerPid(): number | undefined {
    return temporalProcessUnder(this.pid);
  }

  sqliteBytes(): number {
    const base = join(this.dataDir, 'temporal.sqlite');
    return ['', '-wal', '-shm'].reduce(
      (sum, s) => sum + (existsSync(base + s) ? statSync(base + s).size : 0),
      0,
    );
  }

  async stop() {
    await this.closePool();
    if (this.child?.pid && this.child.exitCode === null) {
      const exited = new Promise((r) => this.child!.once('exit', r));
      process.kill(-this.child.pid, 'SIGINT');
      const t = setTimeout(() => process.kill(-this.child!.pid!, 'SIGKILL'), 30_000);
      await exited;
      clearTimeout(t);
    }
    this.forgetChild?.();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/**
 * `--stack` (issue 19 item 4): the production-shaped stack of `npm run stack` (Temporal
 * server on PostgreSQL, two workers, one API, each its own process), started in a
 * throwaway folder with scripts/stack/stack.ts as the chaos run starts it.
 */
export class StackHerald extends HeraldTarget {
  readonly label = 'stack (Temporal on PostgreSQL, 2 workers, 1 API)';
  readonly dir = mkdtempSync(join(tmpdir(), 'herald-bench-stack-'));
  private stack?: Stack;
  private stackInfo?: StackInfo;

  constructor(
    connections = 64,
    private readonly log: (m: string) => void = (m) => process.stderr.write(`${m}\n`),
  ) {
    super(connections);
  }

  private get info(): StackInfo {
    if (!this.stackInfo) throw new Error('the stack is not started');
    return this.stackInfo;
  }

  get apiUrl() {
    return this.info.apiUrl;
  }

  get temporalAddress() {
    return this.info.temporalAddress;
  }

  get namespace() {
    return this.info.namespace;
  }

  protected get operatorKey() {
    return this.info.operatorKey;
  }

  async start() {
    this.stack = new Stack({ dir: this.dir, workers: 2, ui: false, log: (m) => this.log(`stack: ${m}`) });
    this.stackInfo = await this.stack.start();
  }

  heraldCpuSeconds() {
    const s = this.stack!;
    return [s.api, ...s.workers].reduce((sum, c) => sum + cpuSeconds(c?.pid), 0);
  }

  private postmasterPid(): number | undefined {
    try {
      const first = readFileSync(join(this.stack!.postgres.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0];
      return Number(first) || undefined;
    } catch {
      return undefined;
    }
  }

  serverCpuParts() {
    // PostgreSQL runs a process per connection: the tree, with the reaped ones' time.
    return {
      temporal: treeCpuSeconds(this.stack!.temporal?.pid),
      postgres: treeCpuSeconds(this.postmasterPid()),
    };
  }

  memorySample() {
    const s = this.stack!;
    return {
      workerRssMb: Math.max(...s.workers.map((w) => rssMb(w.pid))),
      serverRssMb: rssMb(s.temporal?.pid),
      // The PostgreSQL cluster's folder: the stack's database on disk.
      sqliteMb: dirBytes(s.postgres.dataDir) / 1e6,
    };
  }

  async stop() {
    await this.closePool();
    try {
      await this.stack?.stop({ kill: true });
    } finally {
      this.stack?.postgres?.destroy();
      rmSync(this.dir, { recursive: true, force: true });
    }
  }
}

function dirBytes(dir: string): number {
  let sum = 0;
  try {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      const st = lstatSync(p);
      sum += st.isDirectory() ? dirBytes(p) : st.size;
    }
  } catch {
    /* gone or unreadable */
  }
  return sum;
}

/** CPU seconds of a process and its live descendants, with the time of children they reaped. */
export function treeCpuSeconds(pid: number | undefined): number {
  if (!pid) return NaN;
  const stats = new Map<number, { ppid: number; cpu: number }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // After the command: ppid is field 1; utime, stime, cutime, cstime 11-14.
      stats.set(Number(name), {
        ppid: Number(f[1]),
        cpu: (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / 100,
      });
    } catch {
      /* exited meanwhile */
    }
  }
  if (!stats.has(pid)) return NaN;
  let sum = 0;
  const todo = [pid];
  while (todo.length) {
    const p = todo.pop()!;
    sum += stats.get(p)?.cpu ?? 0;
    for (const [c, s] of stats) if (s.ppid === p) todo.push(c);
  }
  return sum;
}

/** Resident set size of a process in MB, from /proc. */
export function rssMb(pid: number | undefined): number {
  if (!pid) return NaN;
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** The `temporal` process that `pid` started, itself or behind the sh that ties it to its parent (src/temporal/tied-child.ts). */
export function temporalProcessUnder(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  const ps = (ppid: number) => {
    try {
      return execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(ppid)], { encoding: 'utf8' });
    } catch {
      return ''; // ps exits 1 when there are none
    }
  };
  const children = (ppid: number) =>
    ps(ppid)
      .split('\n')
      .map((l) => l.trim().split(/\s+/))
      .filter((c) => c.length === 2)
      .map(([pid, comm]) => ({ pid: Number(pid), comm: comm! }));
  for (const c of children(pid)) {
    if (/temporal/.test(c.comm)) return c.pid;
    const grand = children(c.pid).find((g) => /temporal/.test(g.comm));
    if (grand) return grand.pid;
  }
  return undefined;
}

/** CPU seconds (user + system) a process has used so far, from /proc; NaN if it is gone. */
export function cpuSeconds(pid: number | undefined): number {
  if (!pid) return NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of stat(5); after the command they are 12 and 13.
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}
