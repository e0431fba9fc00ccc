import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { listenOnce, portFree } from '../../src/port-free.js';

// The one port check the SDK exporter (a taken port must not stop the worker), the
// production stack and the bench share.
describe('port-free', () => {
  let held: Server | undefined;
  afterEach(() => new Promise<void>((r) => (held ? held.close(() => r()) : r())));

  it('answers a port the OS gives, free again afterwards', async () => {
    const port = await listenOnce(0);
    expect(port).toBeGreaterThan(0);
    expect(await portFree(port!)).toBe(true);
  });

  it('answers undefined for a port something listens on', async () => {
    held = createServer();
    const port = await new Promise<number>((r) =>
      held!.listen(0, '127.0.0.1', () => r((held!.address() as { port: number }).port)),
    );
    expect(await listenOnce(port)).toBeUndefined();
    expect(await portFree(port)).toBe(false);
  });

  it('answers undefined, not a throw, for a port out of range', async () => {
    expect(await listenOnce(65536)).toBeUndefined();
    expect(await listenOnce(-1)).toBeUndefined();
  });
});
