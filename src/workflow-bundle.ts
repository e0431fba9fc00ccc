import { bundleWorkflowCode, type WorkerOptions } from '@temporalio/worker';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from './config.js';
import { FAILURE_CONVERTER_PATH } from './temporal/data-converter.js';

export const WORKFLOWS_PATH = fileURLToPath(new URL('./workflows/index.ts', import.meta.url));
/**
 * Issue 20: bundled with the workflows; they watch deliveries and endpoints for metrics and
 * add no command. A prebuilt bundle must name them too, as `buildWorkflowBundle` does.
 */
export const WORKFLOW_INTERCEPTOR_MODULES = [
  fileURLToPath(new URL('./observability/workflow-interceptors.ts', import.meta.url)),
];

/**
 * Issue 16: modules evaluated once per worker thread instead of once per workflow. The
 * reusable V8 context gives each workflow a module cache of its own, so every module a
 * workflow imports runs its top level again for each delivery (presets, schedules, health
 * rules: about a tenth of the workflow thread's time, BENCHMARKS.md). These are pure rule
 * modules: no workflow API, no state a workflow could leave behind (the SDK freezes what they
 * export), and what they import comes along. `test/unit/workflow-preload.test.ts` keeps the
 * list to modules that import no workflow API and keep no state a workflow could change.
 */
export const WORKFLOW_PRELOAD_MODULES = [
  'health/engine.ts',
  'health/reporting.ts',
  'health/lifetime-end.ts',
  'policy/next-step.ts',
  'policy/attempt-result.ts',
  'policy/inline-attempt.ts',
  'policy/replay-window.ts',
  'policy/apply-overrides.ts',
  'policy/replay-quota.ts',
  'flow/limiter.ts',
  'flow/order.ts',
  'shared/search-attributes.ts',
  'shared/forward-attributes.ts',
  'shared/health-memo.ts',
  'shared/snapshot-memo.ts',
  'shared/verification.ts',
  'shared/fairness.ts',
  'shared/event-types.ts',
  'shared/names.ts',
].map((m) => fileURLToPath(new URL(`./${m}`, import.meta.url)));

type BundleLogger = Parameters<typeof bundleWorkflowCode>[0]['logger'];

/**
 * A worker built from `workflowsPath` runs webpack at every start: seconds of CPU, paid again
 * by each restarted worker (a worker killed every 10 s in the chaos run, a crash-looping pod).
 * The prebuilt bundle holds what such a worker would bundle: the metrics interceptors and the
 * failure converter (13.7). It has no tracing interceptors: a worker that traces workflows
 * (OTEL_EXPORTER_OTLP_ENDPOINT) bundles at start.
 */
export async function buildWorkflowBundle(logger?: BundleLogger): Promise<string> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES,
    failureConverterPath: FAILURE_CONVERTER_PATH,
    preloadModules: WORKFLOW_PRELOAD_MODULES,
    logger,
  });
  return code;
}

export async function writeWorkflowBundle(path: string, logger?: BundleLogger): Promise<string> {
  const out = resolve(path);
  const code = await buildWorkflowBundle(logger);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, code);
  return out;
}

/**
 * What `HERALD_WORKFLOW_BUNDLE` hands the worker, or undefined to bundle at start. A missing
 * file stops the worker before it polls (the API, given the same environment, never reads it).
 */
export function prebuiltBundle(path: string | undefined): WorkerOptions['workflowBundle'] {
  if (!path) return undefined;
  const codePath = resolve(path);
  if (!existsSync(codePath))
    throw ConfigError.listing([
      `HERALD_WORKFLOW_BUNDLE: no file at ${codePath}: build it with \`node --import tsx src/workflow-bundle.ts <file>\``,
    ]);
  return { codePath };
}

// `node --import tsx src/workflow-bundle.ts <file>`: the image build and `npm run stack`.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const out = process.argv[2];
  if (!out) {
    process.stderr.write('usage: node --import tsx src/workflow-bundle.ts <output file>\n');
    process.exit(2);
  }
  writeWorkflowBundle(out).then(
    (p) => process.stdout.write(`workflow bundle written to ${p}\n`),
    (err: unknown) => {
      process.stderr.write(`workflow bundle failed: ${String(err)}\n`);
      process.exit(1);
    },
  );
}
