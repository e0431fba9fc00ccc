// Issue 20: the Grafana dashboard and the alert rules in deploy/observability/ name only
// metrics a running worker exports (Herald's and the Temporal SDK's), checked on a scrape of
// `npm run worker` after it delivered an event. Also: the worker's /readyz and /healthz.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createApp } from '../../src/api/app.js';
import { newTenant } from '../helpers/api.js';
import { Receiver } from '../helpers/receiver.js';
import { devServerClients, testConfig } from '../helpers/temporal.js';
import { ChildHerald } from './herald-processes.js';

const DIR = new URL('../../deploy/observability/', import.meta.url);

/** Metric names in a PromQL expression: Herald's and the SDK's, by their prefixes. */
function metricNamesIn(expr: string): string[] {
  return [...expr.matchAll(/\b((?:herald|temporal)_[a-z0-9_]+)\b/g)].map((m) => m[1]!);
}

/** Every name a scrape exports, from its TYPE lines (counters with no sample yet included). */
function exportedNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(m[1]!);
    if (m[2] === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(m[1]! + s);
  }
  return names;
}

describe('issue 20: deploy/observability queries name metrics that exist', () => {
  const taskQueue = `obs-${Math.random().toString(36).slice(2, 8)}`;
  const worker = new ChildHerald('src/worker.ts', { HERALD_TASK_QUEUE: taskQueue });
  // /flaky refuses its first request: since issue 16 a first attempt runs inline (a local
  // activity), so only a retry gives the SDK's activity-task histograms a sample.
  let flakySeen = 0;
  const receiver = new Receiver((req, _i, res) => {
    if (req.path === '/flaky' && flakySeen++ === 0) res.writeHead(503).end('busy');
    else res.writeHead(200).end('ok');
  });
  let t: Awaited<ReturnType<typeof devServerClients>>;

  beforeAll(async () => {
    let base: string;
    [t, base] = await Promise.all([devServerClients(), receiver.start(), worker.start('worker polling')]);
    // Two deliveries, one retried, so the SDK's workflow- and activity-task histograms have samples.
    const app = createApp({ client: t.client, config: testConfig({ HERALD_TASK_QUEUE: taskQueue }) });
    const tenant = await newTenant(app);
    const e = await tenant.call('POST', '/v1/endpoints', { url: `${base}/ok`, eventTypes: ['d.ok'] });
    expect(e.status).toBe(201);
    const f = await tenant.call('POST', '/v1/endpoints', {
      url: `${base}/flaky`,
      eventTypes: ['d.ok'],
      policy: { maxAttempts: 2, retryDelays: [1], timeoutSeconds: 5 },
    });
    expect(f.status).toBe(201);
    expect((await tenant.call('POST', '/v1/events', { type: 'd.ok', payload: {} })).status).toBe(202);
    await receiver.waitFor(3, 60_000);
  });

  afterAll(async () => {
    await worker.stop();
    await receiver.stop();
    await t?.close();
  });

  it('the worker is live and ready (Temporal reachable, polling)', async () => {
    expect((await fetch(`${worker.metricsUrl}/healthz`)).status).toBe(200);
    const ready = await fetch(`${worker.metricsUrl}/readyz`);
    expect(ready.status).toBe(200);
  });

  it("every metric in the dashboard and the alert rules is in the worker's /metrics", async () => {
    // The SDK flushes its task histograms on its own schedule: wait for both schedule-to-starts.
    let text = '';
    for (let i = 0; i < 50; i++) {
      text = await (await fetch(`${worker.metricsUrl}/metrics`)).text();
      if (
        text.includes('temporal_workflow_task_schedule_to_start_latency') &&
        text.includes('temporal_activity_schedule_to_start_latency')
      )
        break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const exported = exportedNames(text);
    const dashboard = JSON.parse(readFileSync(new URL('grafana-dashboard.json', DIR), 'utf8')) as {
      panels: Array<{ title: string; targets: Array<{ expr: string }> }>;
    };
    const rules = parse(readFileSync(new URL('alerts.yml', DIR), 'utf8')) as {
      groups: Array<{ rules: Array<{ alert: string; expr: string }> }>;
    };
    const queries = [
      ...dashboard.panels.flatMap((p) =>
        p.targets.map((q) => ({ where: `panel "${p.title}"`, expr: q.expr })),
      ),
      ...rules.groups.flatMap((g) => g.rules.map((r) => ({ where: `alert ${r.alert}`, expr: r.expr }))),
    ];
    const named = queries.flatMap((q) => metricNamesIn(q.expr).map((name) => ({ ...q, name })));
    expect(named.length).toBeGreaterThan(20);
    const missing = named.filter((n) => !exported.has(n.name)).map((n) => `${n.where}: ${n.name}`);
    expect(missing).toEqual([]);
    // The six the issue asks for are all there.
    const all = named.map((n) => n.name);
    for (const m of [
      'herald_deliveries_ended_total',
      'herald_attempt_duration_seconds_bucket',
      'herald_endpoint_transitions_total',
      'temporal_workflow_task_schedule_to_start_latency_bucket',
      'temporal_worker_task_slots_used',
    ])
      expect(all).toContain(m);
  });
});
