// Issue 13.6 and 13.7: how the ingest route finds a source. Temporal is stubbed (the class
// under test is the real one): a map of workflow id -> snapshot, a list of legacy ids, and
// a count of every call.
import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { newSourceId } from '../../../src/inbound/forwards.js';
import { SourceCache } from '../../../src/inbound/source-cache.js';
import { publicSourceId } from '../../../src/inbound/source-ids.js';
import type { SourceSnapshot } from '../../../src/shared/source-types.js';

function stubTemporal(workflows: Map<string, SourceSnapshot>, legacy: string[]) {
  const calls: string[] = [];
  let down = false;
  const client = {
    workflow: {
      getHandle: (id: string) => ({
        query: async () => {
          calls.push(`query ${id}`);
          if (down) throw Object.assign(new Error('unavailable'), { name: 'ServiceError' });
          const s = workflows.get(id);
          if (!s) throw Object.assign(new Error('not found'), { name: 'WorkflowNotFoundError' });
          return s;
        },
      }),
      list: ({ query }: { query: string }) => {
        calls.push(`list ${query}`);
        if (down) throw Object.assign(new Error('unavailable'), { name: 'ServiceError' });
        return (async function* () {
          for (const workflowId of legacy) yield { workflowId };
        })();
      },
    },
  } as unknown as Client;
  return { client, calls, setDown: (d: boolean) => (down = d) };
}

const snap = (sourceId: string, ingestId: string): SourceSnapshot => ({
  sourceId,
  ingestId,
  tenantId: 't',
  config: { verification: { kind: 'none' }, maxBodyBytes: 1 },
  destinations: [],
  deleted: false,
});

describe('13.7b R-RH-INBOUND: source lookup by ingest id', () => {
  it('13.7b: a source is found through its ingest id, a legacy one at its own id, and a public id posted as ingest id finds nothing', async () => {
    const ingest = newSourceId();
    const legacy = newSourceId();
    const workflows = new Map([
      [publicSourceId(ingest), snap(publicSourceId(ingest), ingest)],
      [legacy, snap(legacy, legacy)],
    ]);
    const t = stubTemporal(workflows, [legacy]);
    const cache = new SourceCache(t.client);
    expect((await cache.get(ingest))?.sourceId).toBe(publicSourceId(ingest));
    expect((await cache.get(legacy))?.sourceId).toBe(legacy);
    expect(await cache.get(publicSourceId(ingest))).toBeUndefined();
    // One legacy list, then one query per lookup: never the ingest id as a workflow id.
    expect(t.calls.filter((c) => c.startsWith('list'))).toHaveLength(1);
    expect(t.calls).not.toContain(`query ${ingest}`);
  });
});

describe('13.6 R-RH-INBOUND: unknown ingest ids', () => {
  it('13.6: an unknown id costs one query for the negative TTL, even past the positive TTL; an outage is thrown (a 503), never remembered as unknown', async () => {
    const t = stubTemporal(new Map(), []);
    const cache = new SourceCache(t.client, { ttlMs: 1, negativeTtlMs: 60_000 });
    const id = newSourceId();
    for (let i = 0; i < 5; i++) {
      expect(await cache.get(id)).toBeUndefined();
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(t.calls.filter((c) => c.startsWith('query'))).toHaveLength(1);

    const down = stubTemporal(new Map(), []);
    down.setDown(true);
    const offline = new SourceCache(down.client);
    const again = newSourceId();
    await expect(offline.get(again)).rejects.toThrow('unavailable');
    // Back up: the same id is looked up again, not answered from a remembered failure.
    down.setDown(false);
    expect(await offline.get(again)).toBeUndefined();
    expect(down.calls.filter((c) => c === `query ${publicSourceId(again)}`)).toHaveLength(1);
  });
});
