import { bundleWorkflowCode } from '@temporalio/worker';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { ensureDevServer, ensureTestServer } from '../../scripts/ensure-servers.mjs';
import { startDevServer, type DevServer } from '../../src/temporal/dev-server.js';
import { WORKFLOWS_PATH, WORKFLOW_PRELOAD_MODULES } from '../../src/worker.js';
import { FAILURE_CONVERTER_PATH } from '../../src/temporal/data-converter.js';
import { freePort } from '../helpers/ports.js';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    temporalCliPath: string;
    testServerPath: string;
    workflowBundlePath: string;
  }
}

let server: DevServer | undefined;

// One dev server and one workflow bundle for the whole run: both take seconds to make.
export default async function setup(project: TestProject) {
  const cli = ensureDevServer();
  const testServer = ensureTestServer();
  const [started, bundle] = await Promise.all([
    startOnFreePort(cli),
    // The failure converter the workers' data converter names (issue 13.7), so workflow
    // failures are encrypted in tests as in production.
    bundleWorkflowCode({
      workflowsPath: WORKFLOWS_PATH,
      failureConverterPath: FAILURE_CONVERTER_PATH,
      preloadModules: WORKFLOW_PRELOAD_MODULES,
      logger: quietLogger,
    }),
  ]);
  server = started;
  const dir = mkdtempSync(join(tmpdir(), 'herald-bundle-'));
  const bundlePath = join(dir, 'workflows.js');
  writeFileSync(bundlePath, bundle.code);
  project.provide('temporalAddress', server.address);
  project.provide('temporalCliPath', cli);
  project.provide('testServerPath', testServer);
  project.provide('workflowBundlePath', bundlePath);
  return async () => {
    await server?.stop();
  };
}

/**
 * The dev server on a free port. Ports are kept from the OS's next picks (freePort), but a
 * process outside this run may still take one between the pick and the server's bind; one
 * failed start must not fail the whole suite, so a start refused its port tries another.
 */
async function startOnFreePort(cli: string, tries = 3): Promise<DevServer> {
  for (let i = 1; ; i++) {
    try {
      return await startDevServer({ cliPath: cli, port: await freePort(), namespace: 'default' });
    } catch (err) {
      if (i >= tries || !String(err).includes('address already in use')) throw err;
      console.warn(`the Temporal dev server could not bind its port, trying another (${i}/${tries})`);
    }
  }
}

const noop = () => undefined;
const quietLogger = { trace: noop, debug: noop, info: noop, warn: console.warn, error: console.error, log: noop };
