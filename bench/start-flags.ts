import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The Node flags `npm start` gives Herald's process (package.json's start script), so the
 * benchmarks measure the embedded default exactly as a user starts it. `root`: another
 * checkout's package.json (`--herald-root`).
 */
export function startNodeFlags(root?: string): string[] {
  const file = root ? join(root, 'package.json') : new URL('../package.json', import.meta.url);
  const pkg = JSON.parse(readFileSync(file, 'utf8')) as {
    scripts: { start: string };
  };
  const m = /\btsx((?:\s+--[\w-]+(?:=\S+)?)*)\s+src\/main\.ts/.exec(pkg.scripts.start);
  if (!m) throw new Error(`cannot find "tsx ... src/main.ts" in the start script: ${pkg.scripts.start}`);
  return m[1]!.split(/\s+/).filter(Boolean);
}
