import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';
import { startNodeFlags } from '../../scripts/npm-script-flags.js';
import { freePorts } from './ports.js';

/** `npm start`'s entry point and Node flags as a real child process with its own process group. */
export class HeraldProcess {
  child?: ChildProcess;
  output = '';

  constructor(private readonly env: Record<string, string>) {}

  async start(apiUrl: string, timeoutMs = 90_000): Promise<void> {
    const [codec, http, metrics] = await freePorts(3);
    // The codec listener has a fixed default port; test processes run side by side.
    this.env.HERALD_CODEC_PORT ??= String(codec);
    // So is the metrics listener's (issue 20); a test that scrapes it sets its own.
    this.env.HERALD_METRICS_PORT ??= '0';
    // The embedded server's HTTP and metrics ports default to its frontend port + 10 and + 11,
    // which another test's process may hold on a busy machine.
    this.env.HERALD_TEMPORAL_HTTP_PORT ??= String(http);
    this.env.HERALD_TEMPORAL_METRICS_PORT ??= String(metrics);
    const env: Record<string, string | undefined> = { ...process.env, ...this.env };
    delete env.TEMPORAL_ADDRESS;
    this.output = '';
    this.child = spawn(process.execPath, [...startNodeFlags(), '--import', 'tsx', 'src/main.ts'], {
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout!.on('data', (d: Buffer) => (this.output += d.toString()));
    this.child.stderr!.on('data', (d: Buffer) => (this.output += d.toString()));
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.child.exitCode !== null) throw new Error(`herald exited early:\n${this.output}`);
      // The worker starts after the API is listening only once its bundle is built, so
      // wait for the log line that says both are up.
      if (this.output.includes('worker polling')) {
        const ok = await fetch(`${apiUrl}/healthz`)
          .then((r) => r.ok)
          .catch(() => false);
        if (ok) return;
      }
      await delay(250);
    }
    throw new Error(`herald did not come up:\n${this.output}`);
  }

  /** Kill the whole tree at once, as a power cut would. */
  async kill(): Promise<void> {
    if (!this.child?.pid) return;
    const exited = new Promise((r) => this.child!.once('exit', r));
    process.kill(-this.child.pid, 'SIGKILL');
    await exited;
    await delay(500);
  }

  /** `kill -9` of Herald's own process only, as a crash would leave its children. */
  async killMain(): Promise<void> {
    if (!this.child?.pid || this.child.exitCode !== null) return;
    const exited = new Promise((r) => this.child!.once('exit', r));
    process.kill(this.child.pid, 'SIGKILL');
    await exited;
  }

  /** Resolves with the exit code once Herald ends on its own, or 'timeout'. */
  async exitWithin(ms: number): Promise<number | null | 'timeout'> {
    if (!this.child) return null;
    if (this.child.exitCode !== null) return this.child.exitCode;
    const exited = new Promise<number | null>((r) => this.child!.once('exit', (code) => r(code)));
    return Promise.race([exited, delay(ms).then(() => 'timeout' as const)]);
  }

  /** Ctrl-C: resolves with the exit code. */
  async interrupt(timeoutMs = 30_000): Promise<number | null> {
    if (!this.child?.pid || this.child.exitCode !== null) return this.child?.exitCode ?? null;
    const exited = new Promise<number | null>((r) => this.child!.once('exit', (code) => r(code)));
    process.kill(-this.child.pid, 'SIGINT');
    const code = await Promise.race([exited, delay(timeoutMs).then(() => 'timeout' as const)]);
    if (code === 'timeout') {
      process.kill(-this.child.pid, 'SIGKILL');
      throw new Error(`herald did not stop on SIGINT:\n${this.output}`);
    }
    return code;
  }
}
