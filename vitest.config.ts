import { configDefaults, defineConfig } from 'vitest/config';

// Tests whose assertion is a latency or a pace (issue 17's "others' p99 at most 1 s", a 5/s
// spread): beside another fork's Temporal work on two cores they measure the machine's load,
// not the rule.
const SOLO = ['test/integration/17.1-endpoint-share.test.ts', 'test/integration/17.2-rate-limit.test.ts'];

export default defineConfig({
  test: {
    // Two cores: more parallel files only make the Temporal servers fight for CPU.
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts', 'test/security/unit/**/*.test.ts'] },
      },
      {
        extends: true,
        test: {
          name: 'temporal',
          include: [
            'test/workflows/**/*.test.ts',
            'test/integration/**/*.test.ts',
            'test/security/integration/**/*.test.ts',
            'test/observability/**/*.test.ts',
          ],
          exclude: [...configDefaults.exclude, ...SOLO],
          globalSetup: ['test/setup/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        // Issue 18: the portal in Debian's Chromium against an `npm start` process of its own.
        extends: true,
        test: {
          name: 'browser',
          include: ['test/portal/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
      {
        // Issue 19: the production shape (real Temporal server on PostgreSQL, two worker
        // processes, an API process), started once by its global setup; last and alone, so
        // it never competes with the dev server for the two cores.
        extends: true,
        test: {
          name: 'stack',
          include: ['test/stack/**/*.test.ts'],
          globalSetup: ['test/stack/global-setup.ts'],
          sequence: { groupOrder: 3 },
          testTimeout: 120_000,
          hookTimeout: 300_000,
        },
      },
      {
        // Issue 19: the short chaos run, on a stack of its own, after the stack project.
        extends: true,
        test: {
          name: 'chaos',
          include: ['test/chaos/**/*.test.ts'],
          sequence: { groupOrder: 4 },
          testTimeout: 900_000,
        },
      },
      {
        // The timed ones, after the parallel projects, one file at a time on a server of their own.
        extends: true,
        test: {
          name: 'solo',
          include: SOLO,
          globalSetup: ['test/setup/global-setup.ts'],
          sequence: { groupOrder: 1 },
          poolOptions: { forks: { singleFork: true } },
          testTimeout: 240_000,
          hookTimeout: 180_000,
        },
      },
      {
        // Thousands of workflows at once: after everything else, alone, on a fresh server.
        extends: true,
        test: {
          name: 'load',
          include: ['test/load/**/*.test.ts'],
          globalSetup: ['test/setup/global-setup.ts'],
          sequence: { groupOrder: 2 },
          poolOptions: { forks: { singleFork: true } },
          testTimeout: 1_500_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
