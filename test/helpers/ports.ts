import { createConnection, createServer } from 'node:net';

export async function freePort(host = '127.0.0.1'): Promise<number> {
  return (await freePorts(1, host))[0]!;
}

/**
 * `n` different free ports. Each freePort() gives its port back at once, so two calls in a
 * row may answer the same port (a restarted Herald once got its codec port as its Temporal
 * metrics port, and Temporal would not start); these are all held until all are known.
 */
export async function freePorts(n: number, host = '127.0.0.1'): Promise<number[]> {
  const servers = Array.from({ length: n }, () => createServer());
  try {
    return await Promise.all(
      servers.map(
        (s) =>
          new Promise<number>((resolve, reject) => {
            s.once('error', reject);
            s.listen(0, host, () => {
              const addr = s.address();
              if (typeof addr === 'object' && addr) resolve(addr.port);
              else reject(new Error('no port'));
            });
          }),
      ),
    );
  } finally {
    await Promise.all(servers.map((s) => new Promise((r) => (s.listening ? s.close(r) : r(undefined)))));
  }
}

/** Whether something accepts TCP connections on a loopback port. */
export function portOpen(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection({ host, port });
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}
