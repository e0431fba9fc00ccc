import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';
import { importBoundaries } from './eslint-rules/import-boundaries.js';

// Workflow code runs in Temporal's deterministic sandbox: Node built-ins would either
// fail there or make replays diverge, and activities must be imported as types only.
const nodeBuiltins = [...builtinModules, ...builtinModules.map((m) => `node:${m}`)];

export default tseslint.config(
  { ignores: ['node_modules/**', '.data/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Everything the workflow bundle pulls in: the workflows and the pure modules they import.
    files: ['src/workflows/**/*.ts', 'src/policy/**/*.ts', 'src/health/**/*.ts', 'src/shared/**/*.ts'],
    // Ids are made with node:crypto by the API and the client, never inside a workflow.
    ignores: ['src/shared/ids.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({
            name,
            message: 'Node built-ins are not allowed in workflow code.',
          })),
          patterns: [
            {
              group: ['**/activities/*', '**/activities'],
              allowTypeImports: true,
              message: 'Import activities as types only (proxyActivities<typeof activities>).',
            },
          ],
        },
      ],
    },
  },
  {
    // Issue 15: no import points up (store/ under core/ under api/; policy/ and health/ pure),
    // route files stay apart, and nothing reaches into scripts/ or SDK internals.
    files: ['src/**/*.ts', 'src/**/*.tsx'],
    plugins: { herald: { rules: { 'import-boundaries': importBoundaries } } },
    rules: { 'herald/import-boundaries': 'error' },
  },
  {
    files: ['**/*.js', '**/*.mjs', 'scripts/**'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  {
    // A `node --require` preload is CommonJS (scripts/workflow-thread-preload.cjs).
    files: ['scripts/**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', globalThis: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
