// Issue 13.7 (second bullet), R-RH-INBOUND: the ingest id of a source is the only credential
// of a `verification: none` source, so Temporal must never hold it in clear: not as a
// workflow id, not in a search attribute or memo, not in an unencrypted payload. Read here
// the way an operator (or anyone with the Web UI or the database) reads it: a client with
// no data converter.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../src/api/app.js';
import { SOURCE_WORKFLOW } from '../../../src/shared/names.js';
import { SA_TENANT } from '../../../src/shared/search-attributes.js';
import type { SourceInput } from '../../../src/shared/source-types.js';
import { newTenant, type TenantSession } from '../../helpers/api.js';
import { startDevWorker } from '../../helpers/dev-worker.js';
import { Receiver } from '../../helpers/receiver.js';

type SourceOut = { source: { sourceId: string; ingestUrl: string } };
type Accepted = { requestId: string; forwards: Array<{ id: string; destinationId: string }> };

/** Everything in a value as text, bytes both as UTF-8 and as base64 (how payloads are stored). */
function dump(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => {
    if (v instanceof Uint8Array)
      return `${Buffer.from(v).toString('utf8')} ${Buffer.from(v).toString('base64')}`;
    if (typeof v === 'bigint') return v.toString();
    if (v instanceof Map) return Object.fromEntries(v);
    return v;
  });
}

describe('13.7b R-RH-INBOUND: a source ingest id is never in clear in Temporal', () => {
  let w: Awaited<ReturnType<typeof startDevWorker>>;
  let app: ReturnType<typeof createApp>;
  let tenant: TenantSession;
  const dest = new Receiver();
  let destBase: string;

  beforeAll(async () => {
    [w, destBase] = await Promise.all([startDevWorker(), dest.start()]);
    app = createApp({ client: w.client, config: w.config });
    tenant = await newTenant(app, 'Hashed Ids Co');
  });
  afterAll(async () => {
    await w?.stop();
    await dest.stop();
  });

  const ingest = (path: string, body: string) =>
    app.request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

  it('13.7b R-RH-INBOUND: workflow ids, search attributes, memo and raw history of a source and its forward never hold the ingest id; ingest still forwards', async () => {
    const res = await tenant.call('POST', '/v1/sources', {
      name: 'unsigned',
      destinations: [{ url: `${destBase}/hashed` }],
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const { source } = (await res.json()) as SourceOut;
    const ingestPath = new URL(source.ingestUrl).pathname;
    const ingestId = ingestPath.replace('/in/', '');
    expect(ingestId).toMatch(/^src_[a-f0-9]{32}$/);
    // The tenant addresses the source by its public id; the ingest URL is in its view.
    expect(source.sourceId).not.toBe(ingestId);
    const read = (await (
      await tenant.call('GET', `/v1/sources/${source.sourceId}`)
    ).json()) as SourceOut['source'];
    expect(read.ingestUrl).toBe(source.ingestUrl);

    const accepted = await ingest(ingestPath, '{"n":1}');
    expect(accepted.status).toBe(202);
    const { forwards } = (await accepted.json()) as Accepted;
    await dest.waitFor(1);
    expect(dest.requests[0]!.path).toBe('/hashed');
    // The public id is no credential: posting to it finds no source.
    expect((await ingest(`/in/${source.sourceId}`, '{"n":2}')).status).toBe(404);
    // Forwards are still listed by (public) source id.
    await expect
      .poll(
        async () =>
          (
            (await (await tenant.call('GET', `/v1/forwards?sourceId=${source.sourceId}`)).json()) as {
              data: Array<{ id: string; sourceId: string }>;
            }
          ).data.map((r) => [r.id, r.sourceId]),
        { timeout: 10_000, interval: 200 },
      )
      .toEqual([[forwards[0]!.id, source.sourceId]]);

    // An operator's view: the raw service, so nothing is decoded (memos are encrypted by the
    // codec, which an SDK client without it cannot even list).
    const service = w.client.connection.workflowService;
    const query = `HeraldTenant = '${tenant.tenantId}'`;
    const seen: unknown[] = [];
    const ids: string[] = [];
    const list = async () =>
      (await service.listWorkflowExecutions({ namespace: 'default', query, pageSize: 100 })).executions;
    await expect
      .poll(async () => (await list()).length, { timeout: 10_000, interval: 200 })
      .toBeGreaterThanOrEqual(2);
    for (const wf of await list()) {
      const workflowId = wf.execution!.workflowId!;
      ids.push(workflowId);
      seen.push(wf);
      seen.push(await service.describeWorkflowExecution({ namespace: 'default', execution: { workflowId } }));
      seen.push(await w.client.workflow.getHandle(workflowId).fetchHistory());
    }
    expect(ids).toContain(source.sourceId);
    expect(ids).toContain(forwards[0]!.id);
    const text = dump(seen);
    expect(text).toContain(source.sourceId);
    expect(text).not.toContain(ingestId);
    expect(text).not.toContain(ingestId.slice(4));
  });

  it('13.7b R-RH-INBOUND: a source created before the change (workflow id = ingest id) still ingests and is still addressed by its id', async () => {
    const legacyId = `src_${randomBytes(16).toString('hex')}`;
    const input: SourceInput = {
      sourceId: legacyId,
      tenantId: tenant.tenantId,
      config: { verification: { kind: 'none' }, maxBodyBytes: 1024 },
      destinations: [
        { destinationId: `dst_${'1'.repeat(24)}`, url: `${destBase}/legacy`, createdAt: Date.now() },
      ],
      createdAt: Date.now(),
    };
    // Exactly what the API started before issue 13.7.
    await w.client.workflow.start(SOURCE_WORKFLOW, {
      workflowId: legacyId,
      taskQueue: w.config.HERALD_TASK_QUEUE,
      args: [input],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      typedSearchAttributes: [{ key: SA_TENANT, value: tenant.tenantId }],
    });
    await expect
      .poll(
        async () => {
          let n = 0;
          for await (const _ of w.client.workflow.list({ query: `WorkflowId = '${legacyId}'` })) n++;
          return n;
        },
        { timeout: 10_000, interval: 200 },
      )
      .toBe(1);
    // A new API process: it reads the legacy sources on its first lookup.
    const later = createApp({ client: w.client, config: w.config });
    const res = await later.request(`/in/${legacyId}`, { method: 'POST', body: 'legacy' });
    expect(res.status, await res.clone().text()).toBe(202);
    await expect
      .poll(() => dest.requests.filter((r) => r.path === '/legacy').length, { timeout: 30_000 })
      .toBe(1);
    const view = (await (await tenant.call('GET', `/v1/sources/${legacyId}`)).json()) as SourceOut['source'];
    expect(view.sourceId).toBe(legacyId);
    expect(new URL(view.ingestUrl).pathname).toBe(`/in/${legacyId}`);
  });
});
