import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';

// One list of versions for Herald and for scripts/ensure-servers.mjs, which installs them;
// Herald only finds what the script installed, so `npm start` never builds anything itself.
const versions = JSON.parse(readFileSync(new URL('./server-versions.json', import.meta.url), 'utf8')) as {
  temporalCli: string;
};

/**
 * The Temporal CLI the embedded dev server runs, in the installer's order: `TEMPORAL_CLI_PATH`,
 * the cached build, a `temporal` on PATH.
 */
export function findTemporalCli(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.TEMPORAL_CLI_PATH;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`TEMPORAL_CLI_PATH=${fromEnv} does not exist`);
    return fromEnv;
  }
  const cache = env.HERALD_CACHE_DIR || join(homedir(), '.cache', 'herald');
  const cached = join(cache, 'temporal-cli', versions.temporalCli, 'temporal');
  if (existsSync(cached)) return cached;
  for (const dir of (env.PATH || '').split(delimiter)) {
    if (dir && existsSync(join(dir, 'temporal'))) return join(dir, 'temporal');
  }
  throw new Error(
    'the Temporal CLI is not installed: run `npm run servers` (or `npm start`, which installs it first), ' +
      'or set TEMPORAL_CLI_PATH',
  );
}
