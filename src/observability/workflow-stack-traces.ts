// Issue 16: which stack-trace hook the worker's workflow threads run with, told once at start
// (scripts/workflow-thread-preload.cjs), so an operator who finds the Web UI's "Stack Trace" tab
// empty can read why, and one who started the worker without the preload learns what it costs.
import type { Config } from '../config.js';

const PRELOADED = Symbol.for('herald.workflowThreadPreload');

export interface StartupNote {
  level: 'notice' | 'warn';
  message: string;
}

export function workflowStackTracesNote(
  config: Pick<Config, 'HERALD_WORKFLOW_STACK_TRACES'>,
  preloaded = (globalThis as Record<symbol, unknown>)[PRELOADED] === true,
): StartupNote | undefined {
  if (config.HERALD_WORKFLOW_STACK_TRACES) return undefined;
  return preloaded
    ? {
        level: 'notice',
        message:
          'workflow stack traces are off (the __stack_trace query answers with none); HERALD_WORKFLOW_STACK_TRACES=true turns them on',
      }
    : {
        level: 'warn',
        message:
          "started without --require=./scripts/workflow-thread-preload.cjs: the SDK's workflow stack-trace hook runs, and costs every delivery CPU (package.json's worker script has the flag)",
      };
}
