import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The Node flags an npm script gives Herald's process (`tsx <flags> <entry>` in package.json),
 * so benchmarks and tests start it exactly as a user does. `root`: another checkout's
 * package.json (`--herald-root`).
 */
export function npmScriptNodeFlags(
  script: 'start' | 'worker' | 'api',
  entry: string,
  root?: string,
): string[] {
  const file = root ? join(root, 'package.json') : new URL('../package.json', import.meta.url);
  const pkg = JSON.parse(readFileSync(file, 'utf8')) as { scripts: Record<string, string> };
  const line = pkg.scripts[script] ?? '';
  const m = new RegExp(`\\btsx((?:\\s+--[\\w-]+(?:=\\S+)?)*)\\s+${entry.replace(/[.]/g, '\\.')}`).exec(line);
  if (!m) throw new Error(`cannot find "tsx ... ${entry}" in the ${script} script: ${line}`);
  return m[1]!.split(/\s+/).filter(Boolean);
}

/** `npm start`'s flags (the embedded default), for the benchmarks. */
export function startNodeFlags(root?: string): string[] {
  return npmScriptNodeFlags('start', 'src/main.ts', root);
}
