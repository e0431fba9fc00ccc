import type { ChildProcess } from 'node:child_process';

/**
 * Whatever ends the bench (its end, an error, Ctrl-C, a CI timeout), a process group it
 * started goes with it: Herald runs detached, in a group of its own with the dev server
 * under it, so nothing else would stop it. Returns the function that forgets the child
 * (once it has been stopped the normal way).
 */
export function killGroupOnExit(child: ChildProcess): () => void {
  const kill = () => {
    if (child.pid && child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  };
  const onSignal = () => {
    kill();
    process.exit(130);
  };
  process.once('exit', kill);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return () => {
    process.off('exit', kill);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}
