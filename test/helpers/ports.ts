import { createConnection } from 'node:net';
import { reserveFreePorts } from '../../src/port-free.js';

/** `n` different free ports, kept from the OS's next picks for a while. */
export { reserveFreePorts as freePorts };

export async function freePort(host = '127.0.0.1'): Promise<number> {
  return (await reserveFreePorts(1, host))[0]!;
}

/** Whether something accepts TCP connections on a loopback port. */
export function portOpen(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection({ host, port });
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}
