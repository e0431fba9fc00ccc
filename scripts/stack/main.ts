// `npm run stack`: Herald's production shape on this machine without Docker (issue 19).
// PostgreSQL, the real Temporal server on it, Herald's namespace and search attributes, the
// Web UI, two workers and an API; everything on 127.0.0.1. Ctrl-C stops all of it.
// State (PostgreSQL cluster, generated secrets, ports, logs) stays in the stack folder, so the
// next start resumes where this one stopped. `--fresh` starts over with a new folder.
import { rmSync } from 'node:fs';
import { stackDataDir } from '../server-paths.mjs';
import { LocalPostgres } from './postgres.js';
import { Stack } from './stack.js';

const args = process.argv.slice(2);
const dir = process.env.STACK_DIR || stackDataDir();
const t0 = Date.now();

async function main() {
  if (args.includes('--fresh')) {
    // The cluster may live outside the folder (under root, in the postgres user's home).
    new LocalPostgres('', dir, 0, '').destroy();
    rmSync(dir, { recursive: true, force: true });
  }
  const stack = new Stack({ dir, workers: 2 });
  let stopping = false;
  const stop = async (why: string, code = 0) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`[herald:stack] ${why}: stopping every process of the stack...\n`);
    await stack.stop();
    process.stderr.write('[herald:stack] stopped\n');
    process.exit(code);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  try {
    const info = await stack.start();
    const secs = ((Date.now() - t0) / 1000).toFixed(1);
    process.stdout.write(
      [
        '',
        `Herald stack up in ${secs} s (folder ${dir})`,
        `  API          ${info.apiUrl}   operator key in ${dir}/secrets.json`,
        `  Temporal     ${info.temporalAddress} (namespace ${info.namespace}, PostgreSQL 127.0.0.1:${info.ports.postgres})`,
        info.uiUrl
          ? `  Web UI       ${info.uiUrl}   (decodes payloads through ${info.codecUrl})`
          : '  Web UI       not available',
        `  Logs         ${info.logDir}`,
        '  Stack-only settings: HERALD_ALLOW_ADDRESSES and HERALD_ALLOW_HTTP_HOSTS allow loopback receivers.',
        'Ctrl-C stops everything.',
        '',
      ].join('\n'),
    );
    for (const c of [stack.api, ...stack.workers, stack.temporal, stack.ui])
      c?.child?.once('exit', (code, signal) => {
        if (!stopping)
          process.stderr.write(`[herald:stack] ${c.spec.name} exited (${code ?? signal}); see its log\n`);
      });
  } catch (err) {
    process.stderr.write(
      `[herald:stack] start failed: ${err instanceof Error ? err.message : String(err)}\n`,
    );
    await stop('start failed', 1);
  }
}

void main();
