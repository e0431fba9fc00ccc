// Issue 16: Herald's workflow threads run without the Temporal SDK's promise stack-trace hook.
//
// Loaded with `node --require` (package.json's start and worker scripts, the compose file, the
// image, the production stack): a preload is the only code that runs in the SDK's workflow
// thread before the SDK does. There the SDK installs a V8 promise hook which, for every promise
// a workflow makes, captures a stack and maps it through the bundle's source map, only so the
// `__stack_trace` query (the Web UI's "Stack Trace" tab) can answer. That hook cost 2.0 ms of
// Herald's 16.0 ms of CPU per delivery (BENCHMARKS.md, session 25). Here it is a hook that does
// nothing: workflows run the same, errors keep their stacks, and the query answers with no
// stack. (Refusing the hook outright would make the SDK print a plain-text warning into the
// worker's JSON log.) HERALD_WORKFLOW_STACK_TRACES=true keeps the SDK's hook, to debug a stuck
// workflow; the worker logs which it runs with. The main thread is left alone.
'use strict';
const { isMainThread } = require('node:worker_threads');

// The main thread only notes that it was loaded, for the worker's start-up log.
if (isMainThread) globalThis[Symbol.for('herald.workflowThreadPreload')] = true;
else if (process.env.HERALD_WORKFLOW_STACK_TRACES !== 'true') {
  // A new object on `v8`, the one the SDK reads: Node's own async_hooks (AsyncLocalStorage)
  // create their promise hooks through the original, which must stay as it is.
  const v8 = require('node:v8');
  v8.promiseHooks = { ...v8.promiseHooks, createHook: () => () => {} };
}
