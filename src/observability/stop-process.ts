/**
 * Asks `stop` to end the process with code 1, and ends it after 15 s if it has not: shutting
 * down a stalled or wedged worker may wait on the very tasks it holds. The code tells the
 * supervisor to start a fresh worker.
 */
export function stopProcess(stop: (reason: string) => void, reason: string): void {
  process.exitCode = 1;
  stop(reason);
  setTimeout(() => process.exit(1), 15_000).unref();
}
