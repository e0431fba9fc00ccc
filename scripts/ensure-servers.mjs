#!/usr/bin/env node
// Installs the Temporal servers Herald needs, once, into a cache outside the clone:
//   dev  - the Temporal CLI dev server (includes the Web UI), built with `go install`
//   test - the Java time-skipping test server from Maven Central, behind a wrapper script
//   stack - the real Temporal server, its SQL schema tool and the Web UI server, built with
//          `go install` from the module proxy, plus PostgreSQL's binaries (`npm run stack`)
// Usage: node scripts/ensure-servers.mjs [dev|test|stack|all]. Prints the resolved paths as JSON.
// `all` is what `npm test` needs: all three (the `stack` test project runs on the stack).
// Idempotent: a second run only checks that the cached files are there.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { sumdbUnreachable } from './go-sumdb.mjs';
import {
  TEMPORAL_CLI_VERSION,
  TEST_SERVER_VERSION,
  TEMPORAL_SERVER_MODULE,
  TEMPORAL_SERVER_VERSION,
  TEMPORAL_UI_SERVER_MODULE,
  TEMPORAL_UI_SERVER_VERSION,
  cachedCliPath,
  stackBinDir,
  uiServerBinDir,
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
  const pkg = `github.com/temporalio/cli/cmd/temporal@${TEMPORAL_CLI_VERSION}`;
  log(`building the Temporal CLI ${TEMPORAL_CLI_VERSION} with go install (first run only, a few minutes)...`);
  const r = goRun(['install', pkg], gobin);
  if (!r.ok) fail(`go install ${pkg} failed:\n${r.stderr}`);
  renameSync(join(gobin, 'temporal'), cached);
  rmSync(gobin, { recursive: true, force: true });
  log(`Temporal CLI installed at ${cached}`);
  return cached;
}

/** `go <args>` with GOBIN set; retried without the checksum database only when it is unreachable. */
function goRun(args, gobin) {
  mkdirSync(gobin, { recursive: true });
  // -buildvcs=false: the build runs outside any repository, so VCS stamping can only fail.
  const env = { ...process.env, GOBIN: gobin, GOFLAGS: '-buildvcs=false', CGO_ENABLED: '0' };
  let r = run('go', args, { env });
  if (!r.ok && sumdbUnreachable(r.stderr)) {
    // Some networks reach the module proxy but not the checksum database; then, and only
    // then, the proxy's content-addressed zips are trusted without the database's word.
    log('the Go checksum database is unreachable; retrying once with GOSUMDB=off');
    r = run('go', args, { env: { ...env, GOSUMDB: 'off' } });
  }
  return r;
}

/** The directory of a downloaded module (its config templates and schema files). */
function moduleDir(mod, version, gobin) {
  const r = spawnSync('go', ['mod', 'download', '-json', `${mod}@${version}`], {
    encoding: 'utf8',
    env: { ...process.env, GOFLAGS: '-mod=mod' },
    cwd: gobin,
  });
  try {
    return JSON.parse(r.stdout).Dir;
  } catch {
    fail(`go mod download ${mod}@${version} failed:\n${r.stderr}`);
  }
}

/** PostgreSQL's server binaries: PG_BIN, Debian's versioned directories, or `pg_ctl` on PATH. */
export function findPostgres() {
  const has = (dir) => ['initdb', 'pg_ctl', 'postgres'].every((b) => existsSync(join(dir, b)));
  if (process.env.PG_BIN) {
    if (!has(process.env.PG_BIN)) fail(`PG_BIN=${process.env.PG_BIN} has no initdb, pg_ctl and postgres`);
    return process.env.PG_BIN;
  }
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    for (const v of versions) if (has(join(debian, v, 'bin'))) return join(debian, v, 'bin');
  }
  const pgCtl = onPath('pg_ctl');
  if (pgCtl && has(dirname(pgCtl))) return dirname(pgCtl);
  fail(
    'PostgreSQL (12 or later) is not installed.\n' +
      '  On Debian or Ubuntu: sudo apt-get install postgresql; elsewhere set PG_BIN to the directory with initdb and pg_ctl.',
  );
}

/**
 * The real Temporal server and its SQL tool, with the module's own config template
 * (config/docker.yaml, the one the temporalio/server image renders from the same variables)
 * and schema files copied next to them, so a later `go clean -modcache` cannot break the stack.
 */
export function ensureStackServer() {
  const dir = stackBinDir();
  const out = {
    server: join(dir, 'server'),
    sqlTool: join(dir, 'temporal-sql-tool'),
    serverRoot: join(dir, 'root'),
    schemaDir: join(dir, 'root', 'schema', 'postgresql', 'v12'),
  };
  if (existsSync(out.server) && existsSync(out.sqlTool) && existsSync(join(out.serverRoot, 'config', 'docker.yaml')))
    return out;
  if (!onPath('go')) fail('the stack builds the Temporal server with Go, but `go` is not on PATH (https://go.dev/dl/).');
  const gobin = join(dir, 'build');
  const pkgs = [
    `${TEMPORAL_SERVER_MODULE}/cmd/server@${TEMPORAL_SERVER_VERSION}`,
    `${TEMPORAL_SERVER_MODULE}/cmd/tools/sql@${TEMPORAL_SERVER_VERSION}`,
  ];
  log(`building the Temporal server ${TEMPORAL_SERVER_VERSION} and its SQL tool with go install (first run only)...`);
  const r = goRun(['install', ...pkgs], gobin);
  if (!r.ok) fail(`go install ${pkgs.join(' ')} failed:\n${r.stderr}`);
  const mod = moduleDir(TEMPORAL_SERVER_MODULE, TEMPORAL_SERVER_VERSION, gobin);
  rmSync(out.serverRoot, { recursive: true, force: true });
  mkdirSync(join(out.serverRoot, 'config'), { recursive: true });
  cpSync(join(mod, 'config', 'docker.yaml'), join(out.serverRoot, 'config', 'docker.yaml'));
  cpSync(join(mod, 'schema', 'postgresql'), join(out.serverRoot, 'schema', 'postgresql'), { recursive: true });
  renameSync(join(gobin, 'sql'), out.sqlTool);
  renameSync(join(gobin, 'server'), out.server);
  rmSync(gobin, { recursive: true, force: true });
  log(`Temporal server installed in ${dir}`);
  return out;
}

/**
 * The Temporal Web UI server, or undefined when it does not build here: the stack then runs
 * without a Web UI and says so. A failed build is remembered so every start does not retry it.
 */
export function ensureUiServer() {
  const dir = uiServerBinDir();
  const bin = join(dir, 'ui-server');
  const root = join(dir, 'root');
  const failed = join(dir, 'build-failed.log');
  if (existsSync(bin) && existsSync(join(root, 'config', 'docker.yaml'))) return { uiServer: bin, uiRoot: root };
  if (existsSync(failed)) return undefined;
  if (!onPath('go')) return undefined;
  const gobin = join(dir, 'build');
  const pkg = `${TEMPORAL_UI_SERVER_MODULE}/cmd/server@${TEMPORAL_UI_SERVER_VERSION}`;
  log(`building the Temporal Web UI server ${TEMPORAL_UI_SERVER_VERSION} with go install (first run only)...`);
  const r = goRun(['install', pkg], gobin);
  if (!r.ok) {
    writeFileSync(failed, r.stderr);
    log(`the Web UI server did not build (${failed}); the stack runs without a Web UI`);
    return undefined;
  }
  const mod = moduleDir(TEMPORAL_UI_SERVER_MODULE, TEMPORAL_UI_SERVER_VERSION, gobin);
  rmSync(root, { recursive: true, force: true });
  mkdirSync(join(root, 'config'), { recursive: true });
  cpSync(join(mod, 'config', 'docker.yaml'), join(root, 'config', 'docker.yaml'));
  renameSync(join(gobin, 'server'), bin);
  rmSync(gobin, { recursive: true, force: true });
  log(`Temporal Web UI server installed at ${bin}`);
  return { uiServer: bin, uiRoot: root };
}

/** Everything `npm run stack` runs: the CLI (for herald-setup.sh), the server, PostgreSQL, the UI. */
export function ensureStack() {
  return {
    temporalCli: ensureDevServer(),
    pgBin: findPostgres(),
    ...ensureStackServer(),
    ...(ensureUiServer() ?? {}),
  };
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
  if (what === 'stack' || what === 'all') Object.assign(out, ensureStack());
  try {
    if (out.temporalCli) execFileSync(out.temporalCli, ['--version'], { stdio: 'ignore' });
  } catch {
    fail(`${out.temporalCli} exists but does not run`);
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
}
