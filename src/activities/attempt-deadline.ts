/**
 * R-TIMEOUT (issue 14.13): ends the wait for a response at the attempt's deadline, whatever
 * phase the request is in. undici honours an abort signal only once the request is on a
 * connected socket: while the connection is still being made, the abort waits for the
 * connect to finish or fail. The attempt does not wait with it; the request is left to
 * end on its own (its pool's connect timeout bounds that) and anything it returns late is
 * thrown away.
 */
export function untilDeadline<T extends { body: { destroy(): void } }>(
  pending: Promise<T>,
  deadline: AbortSignal,
): Promise<T> {
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(deadline.reason);
    if (deadline.aborted) onAbort();
    else deadline.addEventListener('abort', onAbort, { once: true });
  });
  return Promise.race([pending, aborted]).then(
    (res) => {
      deadline.removeEventListener('abort', onAbort!);
      return res;
    },
    (err: unknown) => {
      deadline.removeEventListener('abort', onAbort!);
      // Lost the race: a late response's body is dropped, a late error is already ours.
      pending.then(
        (res) => res.body.destroy(),
        () => undefined,
      );
      throw err;
    },
  );
}
