import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { generateSecret } from '../../src/signing/standard-webhooks.js';
import { TEST_OPERATOR_KEY, httpApp, newTenant } from '../helpers/api.js';
import { HeraldProcess } from '../helpers/herald-process.js';
import { freePorts, portOpen } from '../helpers/ports.js';
import { Receiver } from '../helpers/receiver.js';


async function waitUntil(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await delay(200);
  }
  return check();
}

/** Pid of the dev server started for this frontend port (not the sh that supervises it). */
function temporalServerPid(port: number): number | undefined {
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  const line = out
    .split('\n')
    .find((l) => /temporal server start-dev/.test(l) && l.includes(`--port ${port} `) && !/\/bin\/sh/.test(l));
  return line ? Number(line.trim().split(/\s+/)[0]) : undefined;
}

describe('14.3 npm start after a crash: no orphaned Temporal, no Herald running on nothing', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'herald-crash-'));
  const receiver = new Receiver();
  let herald: HeraldProcess | undefined;
  let ports: { api: number; temporal: number; ui: number };

  afterAll(async () => {
    await herald?.interrupt().catch(() => undefined);
    await receiver.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const start = () => {
    herald = new HeraldProcess({
      HERALD_DATA_DIR: dataDir,
      HERALD_API_PORT: String(ports.api),
      HERALD_TEMPORAL_PORT: String(ports.temporal),
      HERALD_TEMPORAL_UI_PORT: String(ports.ui),
      HERALD_OPERATOR_KEY: TEST_OPERATOR_KEY,
    });
    return herald.start(`http://127.0.0.1:${ports.api}`);
  };

  it('14.3 R-CRASH: kill -9 of the Herald process takes its Temporal server with it, and a restart on the same data folder delivers', async () => {
    const [api, temporal, ui] = await freePorts(3);
    ports = { api: api!, temporal: temporal!, ui: ui! };
    const apiUrl = `http://127.0.0.1:${ports.api}`;
    const base = await receiver.start();
    await start();
    const serverPid = temporalServerPid(ports.temporal);
    expect(serverPid, 'the dev server runs').toBeTypeOf('number');

    await herald!.killMain();
    // The server must not outlive Herald: its port closes and its process is gone.
    expect(await waitUntil(async () => !(await portOpen(ports.temporal)), 20_000)).toBe(true);
    expect(await waitUntil(async () => temporalServerPid(ports.temporal) === undefined, 20_000)).toBe(true);

    await start();
    expect((await fetch(`${apiUrl}/readyz`)).status).toBe(200);
    const tenant = await newTenant(httpApp(apiUrl));
    const res = await tenant.call('POST', '/v1/events', {
      type: 'crash.test',
      payload: { n: 1 },
      targets: [{ url: `${base}/r`, secrets: [generateSecret()] }],
    });
    expect(res.status).toBe(202);
    await receiver.waitFor(1, 30_000);
  });

  it('14.3 a Temporal server that dies under a running Herald stops Herald with a non-zero code', async () => {
    const serverPid = temporalServerPid(ports.temporal);
    expect(serverPid).toBeTypeOf('number');
    process.kill(serverPid!, 'SIGKILL');
    const code = await herald!.exitWithin(30_000);
    expect(code, herald!.output).not.toBe('timeout');
    expect(code).not.toBe(0);
    expect(herald!.output).toMatch(/Temporal dev server exited/);
    expect(await portOpen(ports.api)).toBe(false);
  });

  it('14.3 a start on a taken Temporal port is refused and names the process holding it', async () => {
    const squatter = createServer();
    await new Promise<void>((r) => squatter.listen(ports.temporal, '127.0.0.1', () => r()));
    try {
      const err = await start().then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err?.message).toMatch(new RegExp(`port ${ports.temporal} \\(Temporal frontend\\) is already in use by pid ${process.pid}`));
      expect(await portOpen(ports.api)).toBe(false);
    } finally {
      await new Promise((r) => squatter.close(r));
    }
  });
});
