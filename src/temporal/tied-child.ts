import { spawn, type ChildProcess } from 'node:child_process';

// The server runs under a small sh that holds the read end of a pipe whose only writer is
// this process. When this process dies, even by SIGKILL, the kernel closes the pipe, `cat`
// sees end of file, and the server is told to stop: no orphan is left holding the ports
// and the SQLite file. SIGTERM/SIGINT to the sh are passed on, and its exit code is the
// server's.
const TIE = [
  'exec 3<&0',
  '"$@" </dev/null & p=$!',
  "trap 'kill -TERM $p 2>/dev/null' TERM INT",
  '(cat <&3 >/dev/null; kill -TERM $p 2>/dev/null) &',
  'while :; do wait $p; s=$?; kill -0 $p 2>/dev/null || exit $s; done',
].join('\n');

/** Spawns `command` so that it cannot outlive this process; output goes to `logFd`. */
export function spawnTiedToParent(
  command: string,
  args: string[],
  opts: { env: NodeJS.ProcessEnv; logFd: number | 'inherit' },
): ChildProcess {
  const out = opts.logFd;
  return spawn('/bin/sh', ['-c', TIE, 'herald-temporal', command, ...args], {
    env: opts.env,
    stdio: ['pipe', out, out],
  });
}
