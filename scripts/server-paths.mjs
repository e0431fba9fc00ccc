// Where the project's own scripts put the Temporal servers. Shared by the installer,
// `npm start` and the test setup so all three agree without configuration.
import { homedir } from 'node:os';
import { join } from 'node:path';

export const TEMPORAL_CLI_VERSION = 'v1.5.1';
export const TEST_SERVER_VERSION = '1.38.0';

export function cacheDir() {
  return process.env.HERALD_CACHE_DIR || join(homedir(), '.cache', 'herald');
}

export function cachedCliPath() {
  return join(cacheDir(), 'temporal-cli', TEMPORAL_CLI_VERSION, 'temporal');
}

export function testServerDir() {
  return join(cacheDir(), 'test-server', TEST_SERVER_VERSION);
}

export function testServerWrapperPath() {
  return join(testServerDir(), 'temporal-test-server');
}
