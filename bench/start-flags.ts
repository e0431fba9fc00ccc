import { readFileSync } from 'node:fs';

/**
 * The Node flags `npm start` gives Herald's process (package.json's start script), so the
 * benchmarks measure the embedded default exactly as a user starts it.
 */
export function startNodeFlags(): string[] {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    scripts: { start: string };
  };
  const m = /\btsx((?:\s+--[\w-]+(?:=\S+)?)*)\s+src\/main\.ts/.exec(pkg.scripts.start);
  if (!m) throw new Error(`cannot find "tsx ... src/main.ts" in the start script: ${pkg.scripts.start}`);
  return m[1]!.split(/\s+/).filter(Boolean);
}
