import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The determinism rules live in eslint.config.js; prove they bite where they must.
describe('workflow sandbox lint rules (foundation)', () => {
  const eslint = new ESLint();
  const lint = async (filePath: string, code: string) =>
    (await eslint.lintText(code, { filePath }))[0]!.messages.map((m) => m.ruleId);

  it('forbids Node built-ins under src/workflows and in modules workflows import', async () => {
    expect(
      await lint(
        'src/workflows/x.ts',
        "import { readFileSync } from 'node:fs';\nexport const f = readFileSync;\n",
      ),
    ).toContain('@typescript-eslint/no-restricted-imports');
    expect(
      await lint('src/policy/x.ts', "import crypto from 'crypto';\nexport const c = crypto;\n"),
    ).toContain('@typescript-eslint/no-restricted-imports');
  });

  it('allows activities only as types in workflows', async () => {
    expect(
      await lint(
        'src/workflows/x.ts',
        "import { createActivities } from '../activities/index.js';\nexport const a = createActivities;\n",
      ),
    ).toContain('@typescript-eslint/no-restricted-imports');
    expect(
      await lint(
        'src/workflows/x.ts',
        "import type { Activities } from '../activities/index.js';\nexport type A = Activities;\n",
      ),
    ).toEqual([]);
  });

  it('leaves activities free to use Node', async () => {
    expect(
      await lint(
        'src/activities/x.ts',
        "import { readFileSync } from 'node:fs';\nexport const f = readFileSync;\n",
      ),
    ).toEqual([]);
  });
});
