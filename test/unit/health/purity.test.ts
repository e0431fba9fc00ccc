import { describe, it, expect } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// The endpoint workflow runs these modules inside Temporal's deterministic sandbox: a
// clock, randomness or a Node/Temporal import would break replay or the bundle.
const dir = fileURLToPath(new URL('../../../src/health/', import.meta.url));
const files = readdirSync(dir).filter((f) => f.endsWith('.ts'));
const code = (f: string) =>
  readFileSync(dir + f, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:'"`])\/\/.*$/gm, '$1');

describe('src/health purity', () => {
  it('R-SMENGO-HEALTH R-BIRD-HEALTH R-DT-HEALTH R-RH-DEFER: the health directory has the expected modules', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'types.ts',
        'engine.ts',
        'smengo.ts',
        'bird.ts',
        'dongtien.ts',
        'railhook.ts',
        'reporting.ts',
      ]),
    );
  });

  it.each(files)(
    'R-SMENGO-HEALTH R-BIRD-HEALTH R-DT-HEALTH R-RH-DEFER: %s uses no clock, no randomness, no Node or Temporal import',
    (f) => {
      const src = code(f);
      expect(src).not.toMatch(/Date\.now\s*\(/);
      expect(src).not.toMatch(/new Date\s*\(/);
      expect(src).not.toMatch(/Math\.random/);
      expect(src).not.toMatch(/performance\.now|process\.|setTimeout|crypto\./);
      const imports = [...src.matchAll(/\bfrom\s+['"]([^'"]+)['"]/g)].map((m) => m[1]!);
      for (const spec of imports) {
        // Only siblings, and the policy's type module (a type-only import: erased at build).
        expect(
          /^\.\/[a-z0-9-]+\.js$/.test(spec) || spec === '../policy/types.js',
          `${f} imports ${spec}`,
        ).toBe(true);
      }
      expect(src).not.toMatch(/\bimport\s*\(/);
      expect(src).not.toMatch(/\brequire\s*\(/);
    },
  );
});
