import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.js';
import { TransformSandbox } from '../../src/transform/sandbox.js';
import { newTenant, type TenantSession } from '../helpers/api.js';
import { startDevWorker } from '../helpers/dev-worker.js';
import { Receiver } from '../helpers/receiver.js';

// Issue 14.16, R-SMENGO-LOG ("рівно тим, що пішло на вашу адресу"): with a transformation,
// the delivery log shows the body each attempt sent, not the stored event.
const MAPPING =
  '{ "body": { "рахунок": payload.invoiceId, "сума": payload.amount, "примітка": payload.note } }';
const LOG_LIMIT = 4096;

interface AttemptView {
  kind: string;
  attempt: number;
  httpStatus?: number;
  sent?: { body: string; bytes: number; truncated?: boolean; method?: string };
}
interface DeliveryView {
  status: string;
  body?: string;
  attempts: AttemptView[];
}

describe('14.16 R-SMENGO-LOG: the delivery log shows the body as sent', () => {
  let w: Awaited<ReturnType<typeof startDevWorker>>;
  // The first request to each path fails, so every delivery has two attempts to compare.
  const seen = new Set<string>();
  const receiver = new Receiver((req, _i, res) => {
    const first = !seen.has(req.path);
    seen.add(req.path);
    res.writeHead(first ? 503 : 200, { 'content-type': 'text/plain' }).end(first ? 'busy' : 'ok');
  });
  const sandbox = new TransformSandbox({ processes: 1, timeoutMs: 2000 });
  let base: string;
  let tenant: TenantSession;

  beforeAll(async () => {
    [w, base] = await Promise.all([startDevWorker(), receiver.start()]);
    tenant = await newTenant(createApp({ client: w.client, config: w.config, sandbox }));
  });
  afterAll(async () => {
    await w?.stop();
    await receiver.stop();
    await sandbox.close();
  });

  async function deliver(path: string, transformation: string | undefined, note: string) {
    const type = `tx.${path.slice(1)}`;
    const ep = await tenant.call('POST', '/v1/endpoints', {
      url: `${base}${path}`,
      preset: 'smengo',
      eventTypes: [type],
      policy: { maxAttempts: 3, retryDelays: [1] },
      ...(transformation ? { transformation } : {}),
    });
    expect(ep.status, await ep.clone().text()).toBe(201);
    const pub = await tenant.call('POST', '/v1/events', {
      type,
      payload: { invoiceId: 'in_1', amount: 4200, note, card: '4242424242424242' },
    });
    expect(pub.status).toBe(202);
    const { deliveries } = (await pub.json()) as { deliveries: Array<{ id: string }> };
    const id = deliveries[0]!.id;
    let view: DeliveryView | undefined;
    await expect
      .poll(
        async () => {
          view = (await (await tenant.call('GET', `/v1/deliveries/${id}`)).json()) as DeliveryView;
          return view.status;
        },
        { timeout: 30_000, interval: 200 },
      )
      .toBe('succeeded');
    const got = receiver.requests.filter((r) => r.path === path);
    expect(got).toHaveLength(2);
    // Newest first in the view; oldest first at the receiver.
    const attempts = view!.attempts.filter((a) => a.kind === 'attempt').reverse();
    expect(attempts.map((a) => a.httpStatus)).toEqual([503, 200]);
    return { view: view!, attempts, got };
  }

  it('14.16 R-SMENGO-LOG: each attempt shows the transformed body, byte for byte what the receiver got', async () => {
    const { view, attempts, got } = await deliver('/mapped', MAPPING, 'рівно тим, що пішло на вашу адресу');
    for (const [i, a] of attempts.entries()) {
      expect(a.sent, `attempt ${i + 1}`).toBeDefined();
      expect(a.sent!.body).toBe(got[i]!.body);
      expect(a.sent!.bytes).toBe(Buffer.byteLength(got[i]!.body, 'utf8'));
      expect(a.sent!.truncated).toBeUndefined();
      expect(JSON.parse(a.sent!.body)).toEqual({
        рахунок: 'in_1',
        сума: 4200,
        примітка: 'рівно тим, що пішло на вашу адресу',
      });
    }
    // The event itself is still shown as stored: the card that never left stays off every attempt row.
    expect(view.body).toContain('4242424242424242');
    expect(JSON.stringify(view.attempts)).not.toContain('4242424242424242');
  });

  it('14.16 R-SMENGO-LOG: a transformed body past 4 KiB is kept to its first 4 KiB, flagged, with its full size', async () => {
    const note = 'ї'.repeat(3000); // 6,000 bytes of 2-byte characters
    const { attempts, got } = await deliver('/big', MAPPING, note);
    for (const [i, a] of attempts.entries()) {
      const sent = Buffer.from(got[i]!.body, 'utf8');
      expect(a.sent).toMatchObject({ truncated: true, bytes: sent.length });
      const kept = Buffer.from(a.sent!.body, 'utf8');
      expect(kept.length).toBeLessThanOrEqual(LOG_LIMIT);
      expect(kept.length).toBeGreaterThan(LOG_LIMIT - 4);
      expect(sent.subarray(0, kept.length)).toEqual(kept);
      expect(a.sent!.body).not.toContain('\uFFFD');
    }
  });

  it('14.16 R-SMENGO-LOG: a plain delivery adds nothing to its attempt rows (the event body is what was sent)', async () => {
    const { view, attempts, got } = await deliver('/plain', undefined, 'без змін');
    for (const a of attempts) expect(a.sent).toBeUndefined();
    expect(got.map((g) => g.body)).toEqual([view.body, view.body]);
  });
});
