import { bundleWorkflowCode } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { buildWorkflowBundle } from '../../src/workflow-bundle.js';

const quiet = { info() {}, warn() {}, error() {}, debug() {}, trace() {}, log() {} };

// The workflow sandbox evaluates every module of the bundle that is not preloaded
// (WORKFLOW_PRELOAD_MODULES) again for each workflow it starts or replays, so a library in
// the bundle is paid for by every delivery. Profiling
// showed zod's schema construction was the largest CPU cost of a delivery (BENCHMARKS.md).
describe('workflow bundle', () => {
  it('holds only Herald workflow code and the SDK: no zod, hono or other libraries', async () => {
    const { code } = await bundleWorkflowCode({
      workflowsPath: new URL('../../src/workflows/index.ts', import.meta.url).pathname,
      logger: quiet as never,
    });
    const packages = new Set(
      [...code.matchAll(/\.\/node_modules\/((?:@[^/"' ]+\/)?[^/"' ]+)/g)].map((m) => m[1]),
    );
    const allowed = new Set([
      '@temporalio/workflow',
      '@temporalio/common',
      '@temporalio/proto',
      'nexus-rpc',
      'long',
      'ms',
    ]);
    expect([...packages].filter((p) => !allowed.has(p!))).toEqual([]);
    expect(code).toContain('./src/workflows/delivery.ts');
  }, 120_000);

  // A worker on HERALD_WORKFLOW_BUNDLE gets only what the bundle holds: without these the
  // workflows' metrics would read zero and workflow failures would go to history in clear (13.7).
  it('the prebuilt bundle holds the metrics interceptors and the encrypting failure converter', async () => {
    const code = await buildWorkflowBundle(quiet as never);
    expect(code).toContain('./src/observability/workflow-interceptors.ts');
    expect(code).toContain('./src/temporal/failure-converter.cjs');
    expect(code).toContain('./src/workflows/delivery.ts');
  }, 120_000);
});
