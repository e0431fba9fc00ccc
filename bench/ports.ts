import { createServer } from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Whether a listener could open `port` on loopback now. */
function portFree(port: number): Promise<boolean> {
  if (port > 65535) return Promise.resolve(false);
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/**
 * A free port whose derived ports are free too. The embedded dev server listens on its
 * frontend port + 10 and + 11 (src/own-ports.ts); a run once failed to start on "can't set
 * metrics port ...: address already in use" when only the frontend port had been checked.
 */
export async function freePortWith(offsets: readonly number[], tries = 50): Promise<number> {
  for (let i = 0; i < tries; i++) {
    const p = await freePort();
    if ((await Promise.all(offsets.map((o) => portFree(p + o)))).every(Boolean)) return p;
  }
  throw new Error(`no free port with ${offsets.join(', ')} free beside it in ${tries} tries`);
}
