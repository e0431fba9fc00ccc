import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { startNodeFlags } from './start-flags.js';
import { Pool } from 'undici';

export const OPERATOR_KEY = 'op_bench_key_0123456789abcdef';

/** `npm start`'s embedded default (dev server on SQLite, worker, API) in a fresh data dir. */
export class BenchHerald {
  readonly dataDir = mkdtempSync(join(tmpdir(), 'herald-bench-'));
  readonly apiUrl: string;
  private child?: ChildProcess;
  private output = '';
  readonly pool: Pool;

  constructor(
    private readonly ports: { api: number; temporal: number; ui: number },
    private readonly extraEnv: Record<string, string> = {},
    connections = 64,
  ) {
    this.apiUrl = `http://127.0.0.1:${ports.api}`;
    this.pool = new Pool(this.apiUrl, { connections, pipelining: 1, keepAliveTimeout: 60_000 });
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
    const nodeArgs = [...startNodeFlags(), ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean)];
    this.child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'src/main.ts'], {
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
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

  /** Worker + API process (they share one in the embedded default). */
  get pid() {
    return this.child!.pid!;
  }

  /** The Temporal dev server: the `temporal` process under the Herald process (behind the sh that ties its life to Herald's). */
  devServerPid(): number | undefined {
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
    for (const c of children(this.pid)) {
      if (/temporal/.test(c.comm)) return c.pid;
      const grand = children(c.pid).find((g) => /temporal/.test(g.comm));
      if (grand) return grand.pid;
    }
    return undefined;
  }

  sqliteBytes(): number {
    const base = join(this.dataDir, 'temporal.sqlite');
    return ['', '-wal', '-shm'].reduce(
      (sum, s) => sum + (existsSync(base + s) ? statSync(base + s).size : 0),
      0,
    );
  }

  async stop() {
    await this.pool.close().catch(() => {});
    if (this.child?.pid && this.child.exitCode === null) {
      const exited = new Promise((r) => this.child!.once('exit', r));
      process.kill(-this.child.pid, 'SIGINT');
      const t = setTimeout(() => process.kill(-this.child!.pid!, 'SIGKILL'), 30_000);
      await exited;
      clearTimeout(t);
    }
    rmSync(this.dataDir, { recursive: true, force: true });
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

  async tenant(name: string): Promise<string> {
    const r = await this.call<{ apiKey: string }>('POST', '/v1/admin/tenants', OPERATOR_KEY, { name });
    return r.apiKey;
  }

  async endpoint(key: string, body: Record<string, unknown>): Promise<string> {
    const r = await this.call<{ endpoint: { endpointId: string } }>('POST', '/v1/endpoints', key, body);
    return r.endpoint.endpointId;
  }

  /** Publishes one event; resolves with the time the 202 arrived. */
  async publish(key: string, id: string, type: string): Promise<number> {
    // A 503 says "retry the request": a well-behaved publisher sends the same id again.
    for (let attempt = 1; ; attempt++) {
      try {
        await this.call('POST', '/v1/events', key, { id, type, payload: { id, at: Date.now() } }, [202]);
        return performance.timeOrigin + performance.now();
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
