import { readFileSync } from 'node:fs';

/**
 * A compose-style env file: `KEY=value` lines, `#` comments, blank lines. Values are taken
 * literally (no quotes, no interpolation), which is the subset compose and this stack agree on.
 */
export function parseEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const i = line.indexOf('=');
    if (i <= 0) throw new Error(`not KEY=value: ${line}`);
    out[line.slice(0, i).trim()] = line.slice(i + 1).trim();
  }
  return out;
}

export function readEnvFiles(paths: readonly string[]): Record<string, string> {
  return Object.assign({}, ...paths.map((p) => parseEnvFile(readFileSync(p, 'utf8')))) as Record<
    string,
    string
  >;
}
