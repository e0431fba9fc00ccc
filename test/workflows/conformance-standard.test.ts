import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryHarness } from '../helpers/delivery-harness.js';
import { freePort } from '../helpers/ports.js';
import { replayDeliveryUpdate, retryDeadLetterUpdate, deliveryStateQuery } from '../../src/shared/messages.js';

describe('probe', () => {
  let h: DeliveryHarness;
  beforeAll(async () => {
    h = await DeliveryHarness.create({ dns: { 'hang.test': 'hang', 'p.test': ['127.0.0.2'] } });
  });
  afterAll(async () => h?.close());

  it('timeout', async () => {
    const t0 = Date.now();
    const r = await h.deliver({ preset: 'standard', overrides: { timeoutSeconds: 1, maxAttempts: 3 }, respond: () => undefined });
    console.log('timeout', Date.now() - t0, JSON.stringify(r.state.attempts.map((a) => [a.kind, a.code, a.latencyMs, a.startedAt, a.finishedAt])));
  });
  it('dns hang', async () => {
    const r = await h.deliver({ preset: 'standard', url: 'http://hang.test:8080/x', overrides: { timeoutSeconds: 1, maxAttempts: 2 } });
    console.log('hang', JSON.stringify(r.state.attempts.map((a) => [a.kind, a.code, a.latencyMs])));
  });
  it('reset+refused', async () => {
    const r = await h.deliver({ preset: 'standard', overrides: { maxAttempts: 2 }, respond: (_q, _i, res) => res.socket?.destroy() });
    console.log('reset', JSON.stringify(r.state.attempts.map((a) => [a.kind, a.code, a.latencyMs])));
    const port = await freePort();
    const r2 = await h.deliver({ preset: 'standard', url: `http://127.0.0.1:${port}/x`, overrides: { maxAttempts: 2 } });
    console.log('refused', JSON.stringify(r2.state.attempts.map((a) => [a.kind, a.code, a.latencyMs])));
  });
  it('updates', async () => {
    const s = await h.start({ preset: 'smengo', overrides: { maxAttempts: 1 }, respond: (_q, _i, res) => res.writeHead(500).end() });
    await s.handle.result();
    const e = await s.handle.executeUpdate(retryDeadLetterUpdate).catch((e: unknown) => e);
    console.log('closed', e, (e as Error).constructor.name);
    const s2 = await h.start({ preset: 'bird', respond: (_q, _i, res) => res.writeHead(500).end() });
    await h.receiver.waitFor(h.receiver.requests.length + 0);
    await new Promise((r) => setTimeout(r, 300));
    console.log(await s2.handle.query(deliveryStateQuery));
    const e2 = await s2.handle.executeUpdate(replayDeliveryUpdate, { args: [{ mode: 'single' }] }).catch((e: unknown) => e);
    console.log('pending', e2, (e2 as Error).constructor.name, (e2 as { cause?: unknown }).cause);
    await s2.handle.terminate();
  });
});
