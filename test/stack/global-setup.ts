import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { Stack, type StackInfo } from '../../scripts/stack/stack.js';

declare module 'vitest' {
  export interface ProvidedContext {
    stack: StackInfo;
  }
}

// One production-shaped stack for the whole project: PostgreSQL, the real Temporal server,
// two workers and an API, each its own process, started as `npm run stack` starts them.
export default async function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), 'herald-stack-test-'));
  const t0 = Date.now();
  const stack = new Stack({ dir, workers: 2, log: (m) => process.stderr.write(`[stack] ${m}\n`) });
  try {
    project.provide('stack', await stack.start());
  } catch (err) {
    await stack.stop({ kill: true });
    stack.postgres?.destroy();
    throw err;
  }
  process.stderr.write(`[stack] up in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  return async () => {
    await stack.stop({ kill: true });
    stack.postgres.destroy();
    rmSync(dir, { recursive: true, force: true });
  };
}
