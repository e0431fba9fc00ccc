#!/usr/bin/env node
// Installs the Temporal servers Herald needs, once, into a cache outside the clone:
//   dev  - the Temporal CLI dev server (includes the Web UI), built with `go install`
//   test - the Java time-skipping test server from Maven Central, behind a wrapper script
// Usage: node scripts/ensure-servers.mjs [dev|test|all]. Prints the resolved paths as JSON.
// Idempotent: a second run only checks that the cached files are there.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { sumdbUnreachable } from './go-sumdb.mjs';
import {
  TEMPORAL_CLI_VERSION,
  TEST_SERVER_VERSION,
  cachedCliPath,
  testServerDir,
  testServerWrapperPath,
} from './server-paths.mjs';

const log = (msg) => process.stderr.write(`[herald:servers] ${msg}\n`);

function fail(msg) {
  log(`ERROR: ${msg}`);
  process.exit(1);
}

function onPath(cmd) {
  for (const dir of (process.env.PATH || '').split(delimiter)) {
    const p = join(dir, cmd);
    if (dir && existsSync(p)) return p;
  }
  return undefined;
}

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: ['ignore', 2, 'pipe'], encoding: 'utf8', ...opts });
  return { ok: r.status === 0, stderr: r.stderr || '', error: r.error };
}

export function ensureDevServer() {
  // A user who already has the CLI (Homebrew, a release binary) skips the Go build.
  const fromEnv = process.env.TEMPORAL_CLI_PATH;
  if (fromEnv) {
    if (!existsSync(fromEnv)) fail(`TEMPORAL_CLI_PATH=${fromEnv} does not exist`);
    return fromEnv;
  }
  const cached = cachedCliPath();
  if (existsSync(cached)) return cached;
  const system = onPath('temporal');
  if (system) return system;

  if (!onPath('go')) {
    fail(
      'the Temporal CLI is not installed and Go is not on PATH to build it.\n' +
        '  Install Go (https://go.dev/dl/), or install the Temporal CLI yourself and set TEMPORAL_CLI_PATH.',
    );
  }
  const gobin = join(dirname(cached), 'build');
  mkdirSync(gobin, { recursive: true });
  const pkg = `github.com/temporalio/cli/cmd/temporal@${TEMPORAL_CLI_VERSION}`;
  log(`building the Temporal CLI ${TEMPORAL_CLI_VERSION} with go install (first run only, a few minutes)...`);
  // -buildvcs=false: the build runs outside any repository, so VCS stamping can only fail.
  const env = { ...process.env, GOBIN: gobin, GOFLAGS: '-buildvcs=false', CGO_ENABLED: '0' };
  let r = run('go', ['install', pkg], { env });
  if (!r.ok && sumdbUnreachable(r.stderr)) {
    // Some networks reach the module proxy but not the checksum database; then, and only
    // then, the proxy's content-addressed zips are trusted without the database's word.
    log('the Go checksum database is unreachable; retrying once with GOSUMDB=off');
    r = run('go', ['install', pkg], { env: { ...env, GOSUMDB: 'off' } });
  }
  if (!r.ok) fail(`go install ${pkg} failed:\n${r.stderr}`);
  renameSync(join(gobin, 'temporal'), cached);
  rmSync(gobin, { recursive: true, force: true });
  log(`Temporal CLI installed at ${cached}`);
  return cached;
}

export function ensureTestServer() {
  const dir = testServerDir();
  const wrapper = testServerWrapperPath();
  const lib = join(dir, 'lib');
  if (existsSync(wrapper) && existsSync(lib) && readdirSync(lib).length > 0) return wrapper;

  if (!onPath('java')) fail('Java (17+) is needed for the time-skipping test server but `java` is not on PATH.');
  if (!onPath('mvn')) fail('Maven is needed to fetch the time-skipping test server but `mvn` is not on PATH.');
  mkdirSync(dir, { recursive: true });
  // A throwaway POM lets Maven resolve the server and its whole dependency tree.
  writeFileSync(
    join(dir, 'pom.xml'),
    `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>herald</groupId><artifactId>test-server-fetch</artifactId><version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>io.temporal</groupId><artifactId>temporal-test-server</artifactId><version>${TEST_SERVER_VERSION}</version></dependency>
    <dependency><groupId>org.slf4j</groupId><artifactId>slf4j-nop</artifactId><version>1.7.36</version></dependency>
  </dependencies>
</project>
`,
  );
  log(`fetching io.temporal:temporal-test-server:${TEST_SERVER_VERSION} from Maven Central (first run only)...`);
  const r = run('mvn', ['-q', '-B', 'dependency:copy-dependencies', `-DoutputDirectory=${lib}`], { cwd: dir });
  if (!r.ok) fail(`maven could not fetch the test server:\n${r.stderr}`);
  writeFileSync(
    wrapper,
    `#!/bin/sh
# Time-skipping Temporal test server. @temporalio/testing runs it as: <this> <port> [args...]
exec java -Xss1m -XX:+UseSerialGC -cp "${lib}/*" io.temporal.testserver.TestServer "$@"
`,
  );
  chmodSync(wrapper, 0o755);
  log(`time-skipping test server installed at ${wrapper}`);
  return wrapper;
}

const isMain = process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (isMain) {
  const what = process.argv[2] || 'all';
  const out = {};
  if (what === 'dev' || what === 'all') out.temporalCli = ensureDevServer();
  if (what === 'test' || what === 'all') out.testServer = ensureTestServer();
  try {
    if (out.temporalCli) execFileSync(out.temporalCli, ['--version'], { stdio: 'ignore' });
  } catch {
    fail(`${out.temporalCli} exists but does not run`);
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
}
