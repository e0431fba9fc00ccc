import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { createHash } from 'node:crypto';
import { chownSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A local PostgreSQL cluster in a data folder, on loopback only, password-authenticated.
 * PostgreSQL refuses to run as root; under root (CI containers) it runs as Debian's
 * `postgres` user, with its folder in that user's home since root's is not reachable.
 */
export class LocalPostgres {
  readonly dataDir: string;
  private readonly owner?: { uid: number; gid: number };

  constructor(
    private readonly pgBin: string,
    stackDir: string,
    readonly port: number,
    private readonly password: string,
    private readonly user = 'temporal',
  ) {
    if (process.getuid?.() === 0) {
      const ids = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
      const gids = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
      const home = spawnSync('sh', ['-c', 'getent passwd postgres | cut -d: -f6'], { encoding: 'utf8' });
      if (ids.status !== 0 || !home.stdout.trim())
        throw new Error(
          'running as root, and PostgreSQL will not: create a `postgres` user (apt-get install postgresql does)',
        );
      this.owner = { uid: Number(ids.stdout.trim()), gid: Number(gids.stdout.trim()) };
      const tag = createHash('sha256').update(stackDir).digest('hex').slice(0, 12);
      this.dataDir = join(home.stdout.trim(), `herald-stack-${tag}`);
    } else {
      this.dataDir = join(stackDir, 'pgdata');
    }
  }

  get initialised(): boolean {
    return existsSync(join(this.dataDir, 'PG_VERSION'));
  }

  private run(bin: string, args: string[]): string {
    try {
      return execFileSync(join(this.pgBin, bin), args, {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        ...(this.owner ?? {}),
        env: { ...process.env, LC_ALL: 'C.UTF-8' },
      });
    } catch (err) {
      const e = err as { stderr?: string; stdout?: string };
      throw new Error(`${bin} ${args.join(' ')} failed:\n${e.stdout ?? ''}${e.stderr ?? ''}`);
    }
  }

  init(): void {
    if (this.initialised) return;
    rmSync(this.dataDir, { recursive: true, force: true });
    mkdirSync(this.dataDir, { recursive: true, mode: 0o700 });
    const pwfile = `${this.dataDir}.pw`;
    writeFileSync(pwfile, `${this.password}\n`, { mode: 0o600 });
    if (this.owner) {
      chownSync(this.dataDir, this.owner.uid, this.owner.gid);
      chownSync(pwfile, this.owner.uid, this.owner.gid);
    }
    try {
      // scram-sha-256 for every connection, local socket included: no trust anywhere.
      this.run('initdb', [
        '-D',
        this.dataDir,
        '-U',
        this.user,
        `--pwfile=${pwfile}`,
        '--auth=scram-sha-256',
        '-E',
        'UTF8',
      ]);
    } finally {
      rmSync(pwfile, { force: true });
    }
  }

  start(): void {
    const opts = [
      '-c listen_addresses=127.0.0.1',
      `-c port=${this.port}`,
      `-c unix_socket_directories=${this.dataDir}`,
      // Temporal's four services keep up to 30 connections each (docker.yaml's maxConns +
      // visibility), above PostgreSQL's default 100.
      '-c max_connections=200',
      // Same durability as a default server: fsync stays on, so a restart in the chaos run
      // loses nothing PostgreSQL acknowledged.
    ].join(' ');
    this.run('pg_ctl', [
      '-D',
      this.dataDir,
      '-o',
      opts,
      '-l',
      join(this.dataDir, 'server.log'),
      '-w',
      '-t',
      '60',
      'start',
    ]);
  }

  /** `fast`: disconnects clients and stops cleanly, as a restart by an operator would. */
  stop(mode: 'fast' | 'immediate' = 'fast'): void {
    if (!existsSync(join(this.dataDir, 'postmaster.pid'))) return;
    this.run('pg_ctl', ['-D', this.dataDir, '-m', mode, '-w', '-t', '60', 'stop']);
  }

  restart(): void {
    this.stop('fast');
    this.start();
  }

  /** The same restart without blocking the caller's event loop (the chaos run's receivers). */
  async restartAsync(): Promise<void> {
    await promisify(execFile)(
      join(this.pgBin, 'pg_ctl'),
      ['-D', this.dataDir, '-l', join(this.dataDir, 'server.log'), '-m', 'fast', '-w', '-t', '60', 'restart'],
      {
        ...(this.owner ?? {}),
        env: { ...process.env, LC_ALL: 'C.UTF-8' },
      },
    );
  }

  /** Removes the cluster (the test stack's, made for one run). */
  destroy(): void {
    try {
      this.stop('immediate');
    } catch {
      /* not running */
    }
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
