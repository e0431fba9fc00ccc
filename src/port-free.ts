import { createConnection, createServer, type Server } from 'node:net';

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

/**
 * `n` different ports free to listen on, each kept out of the OS's next picks for a while.
 *
 * A port only opened and closed is soon handed out again by a bind to port 0 (here 69 of
 * 1,000 such binds in a row answered a port given out before). The Temporal CLI picks its
 * own internal ports that way while it starts, so it could take the port picked for its
 * frontend, and the dev server died with "address already in use" (a CI run, session 34).
 * As the CLI's own free-port helper does, each port is given back through a connection the
 * listener's side closes first: that side's TIME_WAIT (60 s on Linux) keeps the port from
 * binds to port 0, while a listener that asks for it by number still gets it (Go's and
 * Node's listeners set SO_REUSEADDR). All are held until all are known, so no two are equal.
 */
export async function reserveFreePorts(n: number, host = '127.0.0.1'): Promise<number[]> {
  const servers = Array.from({ length: n }, () => createServer());
  try {
    const ports = await Promise.all(servers.map((s) => listenAny(s, host)));
    await Promise.all(servers.map((s, i) => closedFromListenerSide(s, host, ports[i]!)));
    return ports;
  } finally {
    await Promise.all(servers.map((s) => new Promise((r) => (s.listening ? s.close(r) : r(undefined)))));
  }
}

function listenAny(server: Server, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      const addr = server.address();
      if (typeof addr === 'object' && addr) resolve(addr.port);
      else reject(new Error('no port'));
    });
  });
}

/** One connection to `port`, closed by the listener's side first; resolves once both ends are. */
function closedFromListenerSide(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('connection', (accepted) => accepted.destroy());
    const client = createConnection({ host, port });
    client.once('error', reject);
    // The listener's side sent its FIN first; the client's answer to it ends the connection.
    client.once('close', () => resolve());
    client.resume();
  });
}
