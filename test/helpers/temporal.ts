import { Connection } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { NativeConnection, Runtime, DefaultLogger } from '@temporalio/worker';
import { readFileSync } from 'node:fs';
import { inject } from 'vitest';
import { loadConfig, type Config } from '../../src/config.js';
import { TEST_OPERATOR_KEY } from './api.js';
import { generateCodecKey } from '../../src/temporal/codec.js';
import { dataConverterFor } from '../../src/temporal/data-converter.js';
import { newHeraldClient } from '../../src/temporal/herald-client.js';

/** One key per test process: every client and worker in it can read each other's payloads. */
export const TEST_CODEC_KEY = generateCodecKey();
import { heraldSearchAttributeTypes } from '../../src/temporal/search-attribute-registration.js';

let runtimeInstalled = false;
/** Keep the worker's logs to warnings so test output stays readable. */
export function quietRuntime() {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // already installed in this process
  }
}

export function workflowBundle() {
  return { code: readFileSync(inject('workflowBundlePath'), 'utf8') };
}

export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({
    HERALD_TASK_QUEUE: `test-${Math.random().toString(36).slice(2, 10)}`,
    HERALD_ALLOW_ADDRESSES: '127.0.0.1/32',
    HERALD_ALLOW_HTTP_HOSTS: '127.0.0.1,127.0.0.2,localhost,[::1]',
    HERALD_CODEC_KEYS: TEST_CODEC_KEY,
    HERALD_OPERATOR_KEY: TEST_OPERATOR_KEY,
    ...overrides,
  });
}

/** The shared dev server started by the global setup. */
export async function devServerClients() {
  quietRuntime();
  const address = inject('temporalAddress');
  const connection = await Connection.connect({ address });
  const nativeConnection = await NativeConnection.connect({ address });
  // Tests run with the payload codec and the interceptors on, as production does.
  const client = newHeraldClient({
    connection,
    namespace: 'default',
    dataConverter: dataConverterFor(testConfig()),
  });
  return {
    address,
    client,
    nativeConnection,
    async close() {
      await connection.close();
      await nativeConnection.close();
    },
  };
}

/** The Java time-skipping test server, installed by scripts/ensure-servers.mjs. */
export async function timeSkippingEnv() {
  quietRuntime();
  const env = await startTimeSkipping();
  // The Java test server knows no custom search attributes until told; the dev server
  // gets them on its command line.
  await env.connection.operatorService.addSearchAttributes({
    namespace: env.namespace ?? 'default',
    searchAttributes: heraldSearchAttributeTypes(),
  });
  return env;
}

// The SDK gives the JVM a fixed 5 s to open its port (sdk-core's ephemeral_server), which a
// loaded 2-core machine can overrun; the next start finds its classes cached.
async function startTimeSkipping(tries = 3): Promise<TestWorkflowEnvironment> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await TestWorkflowEnvironment.createTimeSkipping({
        server: { executable: { type: 'existing-path', path: inject('testServerPath') } },
      });
    } catch (err) {
      if (attempt >= tries || !/did not start within/.test(String(err))) throw err;
    }
  }
}
