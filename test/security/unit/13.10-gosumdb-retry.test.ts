import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

// Go's own wording for the two failures (cmd/go/internal/modfetch): a checksum mismatch
// names the database too, which is why matching on "sum.golang.org" alone was unsafe.
const MISMATCH = `go: downloading github.com/temporalio/cli v1.5.1
verifying github.com/temporalio/cli@v1.5.1: checksum mismatch
	downloaded: h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=
	sum.golang.org: h1:BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB=

SECURITY ERROR
This download does NOT match the one reported by the checksum server.
The bits may have been replaced on the origin server, or an attacker may
have intercepted the download attempt.

For more information, see 'go help module-auth'.
`;
const UNREACHABLE = `go: downloading github.com/temporalio/cli v1.5.1
verifying github.com/temporalio/cli@v1.5.1: github.com/temporalio/cli@v1.5.1: Get "https://sum.golang.org/lookup/github.com/temporalio/cli@v1.5.1": dial tcp: lookup sum.golang.org: no such host
`;

/**
 * Runs the real installer with a stand-in `go` first on PATH that fails with the given
 * text and records each call's GOSUMDB, so what the installer does next can be read back.
 */
function installWithFailingGo(stderr: string) {
  const dir = mkdtempSync(join(tmpdir(), 'herald-gosumdb-'));
  const bin = join(dir, 'bin');
  const calls = join(dir, 'calls.log');
  const errFile = join(dir, 'stderr.txt');
  writeFileSync(errFile, stderr);
  spawnSync('mkdir', ['-p', bin]);
  writeFileSync(
    join(bin, 'go'),
    `#!/bin/sh\necho "GOSUMDB=\${GOSUMDB:-default}" >> "${calls}"\ncat "${errFile}" >&2\nexit 1\n`,
  );
  chmodSync(join(bin, 'go'), 0o755);
  const env: Record<string, string> = {
    PATH: `${bin}:${dirname(process.execPath)}:/usr/bin:/bin`,
    HOME: dir,
    HERALD_CACHE_DIR: join(dir, 'cache'),
  };
  const r = spawnSync(process.execPath, ['scripts/ensure-servers.mjs', 'dev'], { env, encoding: 'utf8' });
  const log = existsSync(calls) ? readFileSync(calls, 'utf8').trim().split('\n') : [];
  return { status: r.status, stderr: r.stderr, calls: log };
}

describe('13.10 the dev-server build never drops the Go checksum database after a mismatch', () => {
  it('13.10 a checksum mismatch fails the install at once, with no retry under GOSUMDB=off', () => {
    const r = installWithFailingGo(MISMATCH);
    expect(r.status).toBe(1);
    expect(r.calls).toEqual(['GOSUMDB=default']);
    expect(r.stderr).toContain('checksum mismatch');
  });

  it('13.10 an unreachable checksum database is retried once without it, and says so', () => {
    const r = installWithFailingGo(UNREACHABLE);
    expect(r.status).toBe(1);
    expect(r.calls).toEqual(['GOSUMDB=default', 'GOSUMDB=off']);
    expect(r.stderr).toMatch(/checksum database is unreachable/);
  });
});
