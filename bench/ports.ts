import { listenOnce, reserveFreePorts } from '../src/port-free.js';

/** A free port, kept from the OS's next picks for a while (src/port-free.ts). */
export async function freePort(): Promise<number> {
  return (await reserveFreePorts(1))[0]!;
}

/**
 * A free port whose derived ports are free too: the embedded dev server also listens on its
 * frontend port + 10 and + 11 (src/own-ports.ts), and a start fails when either is taken.
 */
export async function freePortWith(offsets: readonly number[], tries = 50): Promise<number> {
  for (let i = 0; i < tries; i++) {
    const p = await freePort();
    const beside = await Promise.all(offsets.map((o) => listenOnce(p + o)));
    if (beside.every((got) => got !== undefined)) return p;
  }
  throw new Error(`no free port with ${offsets.join(', ')} free beside it in ${tries} tries`);
}
