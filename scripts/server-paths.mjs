// Where the project's own scripts put the Temporal servers. Shared by the installer,
// `npm start` and the test setup so all three agree without configuration.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

// Herald's own lookup of the CLI (src/temporal/cli-path.ts) reads the same file.
const versions = JSON.parse(readFileSync(new URL('../src/temporal/server-versions.json', import.meta.url), 'utf8'));

export const TEMPORAL_CLI_VERSION = versions.temporalCli;
export const TEST_SERVER_VERSION = versions.testServer;
// The production-shaped stack (`npm run stack`): the server release the dev server embeds,
// and the Web UI server the CLI embeds, so the stack and `npm start` run the same code.
export const TEMPORAL_SERVER_VERSION = versions.temporalServer;
export const TEMPORAL_UI_SERVER_VERSION = versions.temporalUiServer;
export const TEMPORAL_SERVER_MODULE = 'go.temporal.io/server';
export const TEMPORAL_UI_SERVER_MODULE = 'github.com/temporalio/ui-server/v2';

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

/** The stack's binaries: `server`, `temporal-sql-tool` and (when it built) `ui-server`. */
export function stackBinDir() {
  return join(cacheDir(), 'temporal-server', TEMPORAL_SERVER_VERSION);
}

export function uiServerBinDir() {
  return join(cacheDir(), 'temporal-ui-server', TEMPORAL_UI_SERVER_VERSION);
}

/** Where `npm run stack` keeps its PostgreSQL cluster, secrets and logs between runs. */
export function stackDataDir() {
  return join(cacheDir(), 'stack');
}
