import { setTimeout as delay } from 'node:timers/promises';
import { decodePayloads } from '../../src/temporal/decode-payloads.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReplayWindowInput } from '../../src/activities/replay-activities.js';
import { createApp } from '../../src/api/app.js';
import { REPLAY_WINDOW_WORKFLOW } from '../../src/shared/names.js';
import { newTenant, type TenantSession } from '../helpers/api.js';
import { startDevWorker } from '../helpers/dev-worker.js';
import { Receiver } from '../helpers/receiver.js';

/**
 * Issue 14.7: "Pominięcie since rozpoczyna okno 24 godziny przed żądaniem": a Bird window
 * replay without `since` starts 24 h before the request, not 24 h before `until`.
 */

const HOUR = 3_600_000;

async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs = 30_000) {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await delay(200);
  }
}

describe('14.7 R-BIRD-REPLAY: the default `since` of a window replay (dev server)', () => {
  let w: Awaited<ReturnType<typeof startDevWorker>>;
  let app: ReturnType<typeof createApp>;
  const receiver = new Receiver((_req, _i, res) => res.writeHead(500).end('boom'));
  let base: string;
  let t: TenantSession;
  let bird = '';
  const seen = new Set<string>();
  const sent = () => receiver.requests.length;

  /** The window the background job was started with: the one it replays over. */
  const nextJobInput = async (): Promise<ReplayWindowInput> => {
    let input: ReplayWindowInput | undefined;
    await waitUntil('the window job', async () => {
      const query = `WorkflowType = '${REPLAY_WINDOW_WORKFLOW}' AND HeraldEndpoint = '${bird}'`;
      for await (const wf of w.client.workflow.list({ query })) {
        if (seen.has(wf.workflowId)) continue;
        seen.add(wf.workflowId);
        const handle = w.client.workflow.getHandle(wf.workflowId);
        const started = (await handle.fetchHistory()).events?.[0]?.workflowExecutionStartedEventAttributes;
        [input] = (await decodePayloads(
          w.client.options.loadedDataConverter,
          started?.input?.payloads,
        )) as ReplayWindowInput[];
        await handle.result();
        return true;
      }
      return false;
    });
    return input!;
  };

  beforeAll(async () => {
    [w, base] = await Promise.all([startDevWorker(), receiver.start()]);
    app = createApp({ client: w.client, config: w.config });
    t = await newTenant(app);
    const r = await t.call('POST', '/v1/endpoints', {
      url: `${base}/bird`,
      preset: 'bird',
      policy: { maxAttempts: 1, retryDelays: [1], timeoutSeconds: 5 },
    });
    bird = ((await r.json()) as { endpoint: { endpointId: string } }).endpoint.endpointId;
    const p = await t.call('POST', '/v1/events', { type: 'win.fail', payload: {} });
    expect(p.status).toBe(202);
    await waitUntil('exhausted in the index', async () => {
      const res = await t.call('GET', `/v1/deliveries?endpointId=${bird}&status=exhausted`);
      return ((await res.json()) as { data: unknown[] }).data.length === 1;
    });
  });
  afterAll(async () => {
    await w?.stop();
    await receiver.stop();
  });

  it('14.7 R-BIRD-REPLAY: with `until` two hours ago and no `since`, the window starts 24 h before the request (not `until` − 24 h)', async () => {
    const before = Date.now();
    const until = new Date(before - 2 * HOUR).toISOString();
    const res = await t.call('POST', '/v1/replay/window', { endpointId: bird, until });
    expect(res.status, await res.clone().text()).toBe(202);
    const after = Date.now();
    const input = await nextJobInput();
    expect(input.until).toBe(until);
    const since = Date.parse(input.since);
    expect(since).toBeGreaterThanOrEqual(before - 24 * HOUR);
    expect(since).toBeLessThanOrEqual(after - 24 * HOUR);
    // The failure happened after `until`: nothing is resent.
    expect(sent()).toBe(1);
  });

  it('14.7 R-BIRD-REPLAY: `until` older than the default start and no `since` → 400 invalid_window naming the default', async () => {
    const res = await t.call('POST', '/v1/replay/window', {
      endpointId: bird,
      until: new Date(Date.now() - 25 * HOUR).toISOString(),
    });
    const text = await res.text();
    expect(res.status, text).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const body = JSON.parse(text) as { code: string; detail?: string; path?: string };
    expect(body).toMatchObject({ code: 'invalid_window', path: 'since' });
    expect(body.detail).toContain('24 h before the request');
    // Refused before anything started: no background job (and none of the day's 20 spent).
    await delay(1000);
    const query = `WorkflowType = '${REPLAY_WINDOW_WORKFLOW}' AND HeraldEndpoint = '${bird}'`;
    const jobs: string[] = [];
    for await (const wf of w.client.workflow.list({ query })) jobs.push(wf.workflowId);
    expect(jobs.filter((id) => !seen.has(id))).toEqual([]);
  });
});
