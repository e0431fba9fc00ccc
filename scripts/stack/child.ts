import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';

/**
 * Whether `done` took longer than `ms`. The timer is cancelled once `done` settles: a
 * deadline left armed keeps the loop alive to its end, and a chaos run's 300 s job deadlines
 * held it for 100-140 s after its report.
 */
async function timedOut(done: Promise<unknown>, ms: number): Promise<boolean> {
  const ac = new AbortController();
  const deadline = delay(ms, true, { signal: ac.signal }).catch(() => false);
  try {
    return await Promise.race([done.then(() => false), deadline]);
  } finally {
    ac.abort();
  }
}

export interface ChildSpec {
  name: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
  logFile: string;
  /**
   * Restart after an exit nobody asked for, as compose's `restart: unless-stopped` does
   * (a Temporal server that starts while PostgreSQL restarts exits, and must come back).
   */
  restartOnExit?: boolean;
}

/**
 * One process of the stack, in its own process group so a kill reaches its children (tsx
 * runs node under node) and nothing else. Output goes to a log file, and the last lines
 * are kept for error messages.
 */
export class StackChild {
  child?: ChildProcess;
  private log?: WriteStream;
  private tail = '';
  private exitedAt?: number;
  /** Set by stop()/kill9(): the next exit was asked for, so it is not restarted. */
  private intended = false;
  restarts = 0;

  constructor(readonly spec: ChildSpec) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  output(): string {
    return this.tail;
  }

  start(): void {
    if (this.running) throw new Error(`${this.spec.name} is already running`);
    this.intended = false;
    this.log ??= createWriteStream(this.spec.logFile, { flags: 'a' });
    this.log.write(`\n--- ${new Date().toISOString()} start ${this.spec.name}\n`);
    const child = spawn(this.spec.command, this.spec.args, {
      env: this.spec.env,
      cwd: this.spec.cwd,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const onData = (d: Buffer) => {
      this.log?.write(d);
      this.tail = (this.tail + d.toString()).slice(-8_000);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code, signal) => {
      this.exitedAt = Date.now();
      this.log?.write(
        `--- ${new Date().toISOString()} ${this.spec.name} exited code=${code} signal=${signal}\n`,
      );
      if (this.spec.restartOnExit && !this.intended) {
        this.restarts++;
        setTimeout(() => {
          if (!this.intended && !this.running) this.start();
        }, 1000).unref();
      }
    });
    this.child = child;
  }

  /** Resolves once the process has exited (immediately if it is not running). */
  async exited(): Promise<void> {
    const c = this.child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    await new Promise((r) => c.once('exit', r));
  }

  /** Sends `signal` to the whole group; after `graceMs` without an exit, SIGKILL. */
  async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 15_000): Promise<void> {
    this.intended = true;
    const c = this.child;
    if (!c?.pid || !this.running) return;
    const done = this.exited();
    try {
      process.kill(-c.pid, signal);
    } catch {
      return;
    }
    if (signal === 'SIGKILL') return done;
    if (await timedOut(done, graceMs)) {
      try {
        process.kill(-c.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
      await done;
    }
  }

  /** `kill -9` of the group, as a crash or a power cut would. */
  kill9(): Promise<void> {
    return this.stop('SIGKILL');
  }

  /** When the last run ended (for fault timelines). */
  lastExit(): number | undefined {
    return this.exitedAt;
  }

  closeLog(): void {
    this.log?.end();
    this.log = undefined;
  }
}

/** Runs a one-shot job to completion; rejects with its output when it fails. */
export async function runJob(spec: ChildSpec, timeoutMs = 300_000): Promise<void> {
  const job = new StackChild(spec);
  job.start();
  const exit = new Promise<number | null>((r) => job.child!.once('exit', r));
  const late = await timedOut(exit, timeoutMs);
  if (late) await job.kill9();
  const code = late ? 'timeout' : await exit;
  job.closeLog();
  if (code !== 0) throw new Error(`${spec.name} failed (${code}):\n${job.output()}`);
}
