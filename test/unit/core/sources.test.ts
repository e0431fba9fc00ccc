import { describe, expect, it } from 'vitest';
import {
  MAX_INGEST_BODY_BYTES,
  addDestination,
  createSource,
  deleteSource,
  listSources,
  patchSource,
  removeDestination,
  updateDestination,
  type SourceLimits,
} from '../../../src/core/sources.js';
import { Refusal } from '../../../src/core/refusal.js';
import { OneAtATime } from '../../../src/api/one-at-a-time.js';
import { publicSourceId } from '../../../src/inbound/source-ids.js';
import { MAX_DESTINATIONS } from '../../../src/shared/source-messages.js';
import type { SourceInput, SourceView } from '../../../src/shared/source-types.js';
import type { SourceChange, SourceChangeResult, SourceStore } from '../../../src/store/sources.js';

const T = 'tn_src';
const creates = new OneAtATime();
const limitsOf = (maxSources: number): SourceLimits => ({
  maxSources,
  oneAtATime: (tenantId, task) => creates.run(tenantId, task),
});
const LIMITS = limitsOf(100);

/** Sources as data, with the source workflow's refusals (deleted, unknown destination, 20 destinations). */
class FakeSourceStore implements SourceStore {
  readonly inputs = new Map<string, SourceInput & { deleted: boolean }>();
  readonly changes: string[] = [];
  private view(i: SourceInput & { deleted: boolean }): SourceView {
    return {
      sourceId: i.sourceId,
      ingestId: i.ingestId!,
      tenantId: i.tenantId,
      name: i.config.name,
      description: i.config.description,
      verification: { kind: i.config.verification.kind } as SourceView['verification'],
      maxBodyBytes: i.config.maxBodyBytes,
      destinations: i.destinations,
      createdAt: i.createdAt,
      deleted: i.deleted,
    };
  }
  async ownedSource(tenantId: string, id: string) {
    const i = this.inputs.get(id);
    return i && i.tenantId === tenantId && !i.deleted ? this.view(i) : undefined;
  }
  async sources(tenantId: string) {
    return [...this.inputs.values()]
      .filter((i) => i.tenantId === tenantId && !i.deleted)
      .map((i) => this.view(i));
  }
  async sourceCount(tenantId: string) {
    return (await this.sources(tenantId)).length;
  }
  async create(input: SourceInput) {
    // A start is a round trip: creates that do not wait for each other interleave here.
    await new Promise((r) => setTimeout(r, 1));
    this.inputs.set(input.sourceId, { ...input, deleted: false });
  }
  async change(id: string, c: SourceChange): Promise<SourceChangeResult> {
    const i = this.inputs.get(id)!;
    this.changes.push(c.kind);
    if (i.deleted) return { ok: false, reason: 'source_deleted' };
    switch (c.kind) {
      case 'patch':
        i.config = { ...i.config, ...(c.patch.verification ? { verification: c.patch.verification } : {}) };
        if (c.patch.name !== undefined) i.config.name = c.patch.name;
        break;
      case 'delete':
        i.deleted = true;
        break;
      case 'addDestination':
        if (i.destinations.length >= MAX_DESTINATIONS) return { ok: false, reason: 'too_many_destinations' };
        i.destinations = [...i.destinations, c.destination];
        break;
      case 'updateDestination':
      case 'removeDestination': {
        const d = i.destinations.find((x) => x.destinationId === c.destinationId);
        if (!d) return { ok: false, reason: 'destination_not_found' };
        i.destinations =
          c.kind === 'removeDestination'
            ? i.destinations.filter((x) => x !== d)
            : i.destinations.map((x) => (x === d ? { ...x, url: c.patch.url ?? x.url } : x));
      }
    }
    return { ok: true, view: this.view(i) };
  }
}

const refusalOf = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(Refusal);
  return err as Refusal;
};

describe('R-RH-INBOUND: sources and their secrets (core/sources)', () => {
  it('13.6: a tenant has at most HERALD_MAX_SOURCES_PER_TENANT live sources, even when creates race: the rest 409 source_limit_reached', async () => {
    const store = new FakeSourceStore();
    const results = await Promise.allSettled(
      Array.from({ length: 5 }, (_, i) => createSource(store, T, { name: `s${i}` }, limitsOf(2))),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(2);
    for (const r of results.filter((x): x is PromiseRejectedResult => x.status === 'rejected')) {
      expect(r.reason).toBeInstanceOf(Refusal);
      expect(r.reason).toMatchObject({ kind: 'conflict', code: 'source_limit_reached' });
    }
    expect(await listSources(store, T)).toHaveLength(2);
    // Another tenant's sources do not count; a deleted one frees its place.
    await createSource(store, 'tn_other', { name: 'o' }, limitsOf(2));
    const [first] = await listSources(store, T);
    await deleteSource(store, T, first!.sourceId);
    await createSource(store, T, { name: 'again' }, limitsOf(2));
    expect(await listSources(store, T)).toHaveLength(2);
  });

  it('issue 13.7: the public id is derived from the ingest id, which is never the workflow id', async () => {
    const store = new FakeSourceStore();
    const { source } = await createSource(store, T, { name: 'github' }, LIMITS);
    expect(source.sourceId).toBe(publicSourceId(source.ingestId));
    expect(source.sourceId).not.toBe(source.ingestId);
    expect(store.inputs.get(source.sourceId)!.ingestId).toBe(source.ingestId);
    expect(source.maxBodyBytes).toBe(MAX_INGEST_BODY_BYTES);
  });

  it('a Standard Webhooks source without secrets gets a whsec_ secret, shown once and stored as its signing secret', async () => {
    const store = new FakeSourceStore();
    const { source, secret } = await createSource(
      store,
      T,
      { verification: { kind: 'standard_webhooks' } },
      LIMITS,
    );
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32,}$/);
    const stored = store.inputs.get(source.sourceId)!.config.verification;
    expect(stored).toMatchObject({ kind: 'standard_webhooks', secrets: [secret] });
  });

  it('an HMAC source without secrets gets 32 random bytes in hex; given secrets are kept and none is shown', async () => {
    const store = new FakeSourceStore();
    const hmac = {
      kind: 'hmac' as const,
      header: 'X-Hub-Signature-256',
      algorithm: 'sha256' as const,
      encoding: 'hex' as const,
    };
    const made = await createSource(store, T, { verification: hmac }, LIMITS);
    expect(made.secret).toMatch(/^[a-f0-9]{64}$/);
    const given = await createSource(
      store,
      T,
      {
        verification: { ...hmac, secrets: ['a-secret-of-16-chars'] },
      },
      LIMITS,
    );
    expect(given.secret).toBeUndefined();
    expect(store.inputs.get(given.source.sourceId)!.config.verification).toMatchObject({
      secrets: ['a-secret-of-16-chars'],
    });
  });

  it('a verification-less source shows no secret; a patch to a new scheme makes one', async () => {
    const store = new FakeSourceStore();
    const { source, secret } = await createSource(store, T, {}, LIMITS);
    expect(secret).toBeUndefined();
    const patched = await patchSource(store, T, source.sourceId, {
      verification: { kind: 'standard_webhooks' },
    });
    expect(patched.secret).toMatch(/^whsec_/);
    expect((await patchSource(store, T, source.sourceId, { name: 'x' })).secret).toBeUndefined();
  });

  it('each destination gets its own unguessable id; the 21st is refused too_many_destinations (409)', async () => {
    const store = new FakeSourceStore();
    const urls = Array.from({ length: MAX_DESTINATIONS }, (_, i) => ({ url: `http://127.0.0.1:9/${i}` }));
    const { source } = await createSource(store, T, { destinations: urls }, LIMITS);
    expect(new Set(source.destinations.map((d) => d.destinationId)).size).toBe(MAX_DESTINATIONS);
    source.destinations.forEach((d) => expect(d.destinationId).toMatch(/^dst_[a-f0-9]{24}$/));
    const r = await refusalOf(addDestination(store, T, source.sourceId, { url: 'http://127.0.0.1:9/x' }));
    expect([r.kind, r.code]).toEqual(['conflict', 'too_many_destinations']);
  });

  it("another tenant's source is not found, and its request checks never run", async () => {
    const store = new FakeSourceStore();
    const { source } = await createSource(store, T, {}, LIMITS);
    let checked = false;
    const r = await refusalOf(
      addDestination(store, 'tn_other', source.sourceId, { url: 'bad' }, () => {
        checked = true;
      }),
    );
    expect([r.kind, r.code, checked]).toEqual(['not_found', 'source_not_found', false]);
    expect(store.changes).toEqual([]);
  });

  it('an unknown destination is destination_not_found; a deleted source is gone from lists and lookups', async () => {
    const store = new FakeSourceStore();
    const { source } = await createSource(store, T, {}, LIMITS);
    expect((await refusalOf(removeDestination(store, T, source.sourceId, 'nope'))).code).toBe(
      'destination_not_found',
    );
    const unknown = `dst_${'c'.repeat(24)}`;
    expect((await refusalOf(updateDestination(store, T, source.sourceId, unknown, {}))).code).toBe(
      'destination_not_found',
    );
    await deleteSource(store, T, source.sourceId);
    expect(await listSources(store, T)).toEqual([]);
    expect((await refusalOf(deleteSource(store, T, source.sourceId))).code).toBe('source_not_found');
  });

  it('sources are listed newest first', async () => {
    const store = new FakeSourceStore();
    const a = await createSource(store, T, { name: 'a' }, LIMITS, 1000);
    const b = await createSource(store, T, { name: 'b' }, LIMITS, 2000);
    expect((await listSources(store, T)).map((s) => s.sourceId)).toEqual([
      b.source.sourceId,
      a.source.sourceId,
    ]);
  });
});
