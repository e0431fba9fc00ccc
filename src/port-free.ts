import { createServer } from 'node:net';

/**
 * Opens and closes a listener on `port` (0: any the OS gives); the port it got, or undefined
 * when the port was taken or is out of range. Only a check: the port is free again at once.
 */
export function listenOnce(port: number, host = '127.0.0.1'): Promise<number | undefined> {
  if (!Number.isInteger(port) || port < 0 || port > 65535) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(undefined));
    s.listen(port, host, () => {
      const got = (s.address() as { port: number }).port;
      s.close(() => resolve(got));
    });
  });
}

/** Whether a loopback port is free to bind right now. */
export async function portFree(port: number): Promise<boolean> {
  return (await listenOnce(port)) !== undefined;
}
