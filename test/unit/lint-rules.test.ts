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

// Issue 15: the import boundaries (eslint-rules/import-boundaries.js), each proved to fire
// on a snippet placed in the folder it guards, and to stay quiet on an import it allows.
describe('issue 15: import boundaries', () => {
  const eslint = new ESLint();
  const RULE = 'herald/import-boundaries';
  const rulesAt = async (filePath: string, imports: string) =>
    (await eslint.lintText(`${imports}\nexport const x = y;\n`, { filePath }))[0]!.messages.map(
      (m) => m.ruleId,
    );
  const fires = async (filePath: string, from: string) =>
    expect(await rulesAt(filePath, `import { y } from '${from}';`)).toContain(RULE);
  const allows = async (filePath: string, from: string) =>
    expect(await rulesAt(filePath, `import { y } from '${from}';`)).not.toContain(RULE);

  it('15.4: policy/ imports only policy/ and shared/, however deep the file sits', async () => {
    for (const up of [
      '../api/app.js',
      '../store/visibility.js',
      '../core/x.js',
      '../activities/index.js',
      '../config.js',
      '../health/types.js',
    ])
      await fires('src/policy/x.ts', up);
    await fires('src/policy/sub/x.ts', '../../api/app.js');
    await allows('src/policy/x.ts', './types.js');
    await allows('src/policy/x.ts', '../shared/delivery-types.js');
    await allows('src/policy/sub/x.ts', '../types.js');
  });

  it('15.4: health/ imports only health/, policy/ and shared/', async () => {
    for (const up of ['../api/app.js', '../workflows/endpoint.js', '../store/x.js', '../config.js'])
      await fires('src/health/x.ts', up);
    await allows('src/health/x.ts', '../policy/types.js');
    await allows('src/health/x.ts', '../shared/endpoint-types.js');
  });

  it('15.4: a type-only import pointing up is caught too', async () => {
    expect(await rulesAt('src/policy/x.ts', "import type { y } from '../api/app.js';")).toContain(RULE);
    expect(await rulesAt('src/store/x.ts', "export { y } from '../core/x.js';")).toContain(RULE);
  });

  it('15.4: store/ never imports core/ or api/; core/ never imports api/', async () => {
    await fires('src/store/x.ts', '../core/publish-event.js');
    await fires('src/store/x.ts', '../api/directory.js');
    await fires('src/core/x.ts', '../api/problem.js');
    await allows('src/core/x.ts', '../store/visibility.js');
    await allows('src/store/x.ts', '../shared/names.js');
  });

  it("15.4: a route file never imports another resource's route files, only its own", async () => {
    await fires('src/api/routes/events.ts', './deliveries.js');
    await fires('src/api/routes/events.handlers.ts', './deliveries.routes.js');
    await allows('src/api/routes/events.handlers.ts', './events.routes.js');
    await allows('src/api/routes/events.ts', '../problem.js');
  });

  it('15.4: nothing in src/ imports scripts/ or @temporalio/*/lib internals', async () => {
    await fires('src/main.ts', '../scripts/ensure-servers.mjs');
    await fires('src/api/x.ts', '../../scripts/server-paths.mjs');
    await fires('src/api/x.ts', '@temporalio/common/lib/time.js');
    await allows('src/api/x.ts', '@temporalio/common');
    // Tests and scripts are tooling themselves: the rule is for src/ only.
    await allows('test/helpers/x.ts', '../../scripts/ensure-servers.mjs');
  });
});
