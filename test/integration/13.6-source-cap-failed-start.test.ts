// Issue 13.6: a tenant has at most HERALD_MAX_SOURCES_PER_TENANT sources. A create whose
// workflow start Temporal refused made no source, so it must not count against that cap
// (the retry of the same request would be refused at the cap's edge). Real dev server; no
// worker is needed, since the start and the count are the server's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SourceCache } from '../../src/inbound/source-cache.js';
import { newSourceId } from '../../src/inbound/forwards.js';
import { publicSourceId } from '../../src/inbound/source-ids.js';
import type { SourceInput } from '../../src/shared/source-types.js';
import { temporalSourceStore } from '../../src/store/sources.js';
import { devServerClients, testConfig } from '../helpers/temporal.js';

describe('13.6 the source cap counts sources that were started', () => {
  let c: Awaited<ReturnType<typeof devServerClients>>;
  beforeAll(async () => {
    c = await devServerClients();
  });
  afterAll(async () => c?.close());

  const input = (tenantId: string, ingestId: string): SourceInput => ({
    sourceId: publicSourceId(ingestId),
    ingestId,
    tenantId,
    config: { verification: { kind: 'none' }, maxBodyBytes: 1024 },
    destinations: [],
    createdAt: Date.now(),
  });

  it('13.6: a source create whose start Temporal refused does not count against the tenant’s cap', async () => {
    const store = temporalSourceStore({
      client: c.client,
      taskQueue: testConfig().HERALD_TASK_QUEUE,
      sources: new SourceCache(c.client),
    });
    const suffix = Math.random().toString(36).slice(2, 10);
    const [first, second] = [`tn_capa${suffix}`, `tn_capb${suffix}`];
    const ingestId = newSourceId();
    await store.create(input(first, ingestId));
    try {
      // The same workflow id again: the server refuses the start, and nothing is created.
      await expect(store.create(input(second, ingestId))).rejects.toThrow();
      expect(await store.sourceCount(second)).toBe(0);
      expect(await store.sourceCount(first)).toBe(1);
    } finally {
      await c.client.workflow.getHandle(publicSourceId(ingestId)).terminate('test over');
    }
  });
});
