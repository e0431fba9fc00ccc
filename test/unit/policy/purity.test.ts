import { describe, it, expect } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// These modules are bundled into the Temporal workflow sandbox: any clock,
// randomness or Node built-in would break replay or the bundle.
const dir = fileURLToPath(new URL('../../../src/policy/', import.meta.url));
const files = readdirSync(dir).filter((f) => f.endsWith('.ts'));
const code = (f: string) =>
  readFileSync(dir + f, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

describe('R-JITTER determinism of src/policy', () => {
  it('R-JITTER: the policy directory has the expected modules', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'address.ts',
        'classify.ts',
        'policy.ts',
        'presets.ts',
        'retry-after.ts',
        'schedule.ts',
        'status-grammar.ts',
        'url-check.ts',
      ]),
    );
  });

  it.each(files)('R-JITTER: %s uses no clock, no randomness and no Node or Temporal import', (f) => {
    const src = code(f);
    expect(src).not.toMatch(/Date\.now\s*\(/);
    // `new Date(ms)` only formats a time it is given; `new Date()` reads the clock.
    expect(src).not.toMatch(/new Date\s*\(\s*\)/);
    expect(src).not.toMatch(/(?<!new\s*)\bDate\s*\(/);
    expect(src).not.toMatch(/Math\.random/);
    expect(src).not.toMatch(/performance\.now|process\.|setTimeout|crypto\./);
    // Types may come from shared/ (erased from the bundle: no code, so no clock); values only from policy/.
    const valueImports = [...src.matchAll(/\bimport\s+(?!type\b)[^;]*?\bfrom\s+['"]([^'"]+)['"]/g)].map((m) => m[1]!);
    for (const spec of valueImports) {
      expect(spec === 'zod' || /^\.\/[a-z0-9-]+\.js$/.test(spec), `${f} imports ${spec}`).toBe(true);
    }
    const typeImports = [...src.matchAll(/\bimport\s+type\b[^;]*?\bfrom\s+['"]([^'"]+)['"]/g)].map((m) => m[1]!);
    for (const spec of typeImports) {
      expect(/^\.\/[a-z0-9-]+\.js$|^\.\.\/shared\/[a-z0-9-]+\.js$/.test(spec), `${f} imports types from ${spec}`).toBe(true);
    }
    // Re-exports count too.
    for (const m of src.matchAll(/\bexport\s+(?!type\b)[^;]*?\bfrom\s+['"]([^'"]+)['"]/g))
      expect(/^\.\/[a-z0-9-]+\.js$/.test(m[1]!), `${f} re-exports ${m[1]}`).toBe(true);
    expect(src).not.toMatch(/\bimport\s*\(/);
    expect(src).not.toMatch(/\brequire\s*\(/);
  });
});
