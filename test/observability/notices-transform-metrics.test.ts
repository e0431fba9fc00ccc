// Issue 20: notices sent and failed by channel, transformation failures by reason and the
// evaluator pool's wait, counted where they happen (the notifier, the sandbox).
import { afterAll, describe, expect, it } from 'vitest';
import { HeraldMetrics } from '../../src/observability/metrics.js';
import { createNotifier } from '../../src/notify/notifier.js';
import { TransformSandbox } from '../../src/transform/sandbox.js';
import { parseMetrics, sample } from '../../src/observability/prometheus-text.js';

const ctx = {
  tenantId: 'tn_1',
  endpointId: 'ep_1',
  url: 'https://example.com/h',
  at: Date.now(),
  episode: 1,
  preset: 'smengo',
};
const scrape = async (m: HeraldMetrics) => parseMetrics(await m.registry.metrics());

describe('issue 20: notice and transformation metrics', () => {
  const sandboxes: TransformSandbox[] = [];
  afterAll(async () => {
    for (const s of sandboxes) await s.close();
  });

  it('counts each notice by channel and result', async () => {
    const metrics = new HeraldMetrics();
    let mailFails = false;
    const notifier = createNotifier({
      now: () => new Date(),
      metrics,
      mailer: {
        send: async () => {
          if (mailFails) throw Object.assign(new Error('refused'), { responseCode: 550 });
          return { messageId: '<m@x>' };
        },
      },
      sendWebhook: async (req) => (req.url.endsWith('/ok') ? { ok: true } : { ok: false, code: 'http_500' }),
    });
    const hook = (path: string) => ({
      url: `https://ops.example.com${path}`,
      secrets: ['whsec_' + 'A'.repeat(32)],
    });
    await notifier.notify({
      notice: 'disabled',
      ctx,
      emailTo: 'ops@example.com',
      operationalWebhook: hook('/ok'),
    });
    mailFails = true;
    await notifier.notify({
      notice: 'degraded',
      ctx,
      emailTo: 'ops@example.com',
      operationalWebhook: hook('/fail'),
    });
    await notifier.notify({ notice: 'paused', ctx, emailTo: 'not an address' });
    const m = await scrape(metrics);
    expect(sample(m, 'herald_notices_total', { channel: 'email', result: 'sent' })).toBe(1);
    expect(sample(m, 'herald_notices_total', { channel: 'email', result: 'failed' })).toBe(2);
    expect(sample(m, 'herald_notices_total', { channel: 'webhook', result: 'sent' })).toBe(1);
    expect(sample(m, 'herald_notices_total', { channel: 'webhook', result: 'failed' })).toBe(1);
  });

  it('counts failed and busy transformations and times the wait for an evaluator', async () => {
    const metrics = new HeraldMetrics();
    const sandbox = new TransformSandbox({ processes: 1, timeoutMs: 300, queueTimeoutMs: 150 }, metrics);
    sandboxes.push(sandbox);
    const event = { id: 'evt_1', type: 't', occurredAt: new Date().toISOString(), body: '{"a":1}' };
    // A good one, a failing one, and one evaluator held by a loop past its limit while more
    // wait longer than the queue allows: those are answered busy. Which call gets a process
    // depends on this machine's speed, so the counts are checked against the answers.
    const outcomes = [
      await sandbox.transform('{"body": payload}', event),
      await sandbox.transform('$error("no")', event),
      ...(await Promise.all([
        sandbox.transform('($f := function($x){ $f($x) }; $f(1))', event),
        sandbox.transform('{"body": payload}', event),
        sandbox.transform('{"body": payload}', event),
      ])),
    ];
    const busy = outcomes.filter((o) => !o.ok && o.busy).length;
    const failed = outcomes.filter((o) => !o.ok && !o.busy).length;
    expect(busy + failed).toBeGreaterThanOrEqual(2);
    const m = await scrape(metrics);
    expect(sample(m, 'herald_transform_failures_total', { reason: 'failed' })).toBe(failed);
    expect(sample(m, 'herald_transform_failures_total', { reason: 'busy' })).toBe(busy);
    // Every evaluation that got a process was timed once; a busy one never got one.
    expect(sample(m, 'herald_transform_pool_wait_seconds_count', {})).toBe(outcomes.length - busy);
  });
});
