import { ServiceError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { Directory, ENDPOINT_VIEW_FALLBACK_MS, ENDPOINT_VIEW_TRUST_MS } from '../../src/store/directory.js';
import { SNAPSHOT_MEMO_KEY } from '../../src/shared/snapshot-memo.js';

/** Just enough of a Temporal client: a visibility list and one query answer per endpoint. */
function fakeClient(answers: Record<string, () => Promise<unknown>>) {
  return {
    workflow: {
      list: () =>
        (async function* () {
          for (const workflowId of Object.keys(answers)) yield { workflowId };
        })(),
      getHandle: (id: string) => ({ query: () => answers[id]!() }),
    },
  } as unknown as Client;
}

const view = (endpointId: string) => ({ endpointId, tenantId: 'tn_1', deleted: false, createdAt: 1 });

describe('API directory', () => {
  it('R-IDEMP: a publish never silently skips an endpoint whose read failed for a passing reason', async () => {
    const d = new Directory(
      fakeClient({
        ep_a: async () => view('ep_a'),
        ep_b: async () => {
          throw new ServiceError('query timed out');
        },
      }),
    );
    await expect(d.endpoints('tn_1')).rejects.toThrow('query timed out');
  });

  it('R-IDEMP: a publish right after creating an endpoint reaches it, before visibility lists it', async () => {
    const client = fakeClient({ ep_a: async () => view('ep_a') });
    const handle = client.workflow.getHandle;
    // Visibility lists only ep_a; ep_new exists and answers its query.
    (client.workflow as { getHandle: unknown }).getHandle = (id: string) =>
      id === 'ep_new' ? { query: async () => view('ep_new') } : handle(id);
    const d = new Directory(client);
    d.rememberCreated('tn_1', 'ep_new');
    expect((await d.endpoints('tn_1')).map((e) => e.endpointId).sort()).toEqual(['ep_a', 'ep_new']);
  });

  it('leaves out an endpoint that no longer exists', async () => {
    const d = new Directory(
      fakeClient({
        ep_a: async () => view('ep_a'),
        ep_gone: async () => {
          throw new WorkflowNotFoundError('gone', 'ep_gone', undefined);
        },
      }),
    );
    expect((await d.endpoints('tn_1')).map((e) => e.endpointId)).toEqual(['ep_a']);
  });

  it('19: an endpoint whose worker is down stands on the view it last answered (for a while), so publishing goes on', async () => {
    let down = false;
    let now = 1_000_000;
    const d = new Directory(
      fakeClient({
        ep_a: async () => view('ep_a'),
        ep_b: async () => {
          if (down) throw new ServiceError('query timed out');
          return view('ep_b');
        },
      }),
      () => now,
    );
    expect((await d.endpoints('tn_1', true)).map((e) => e.endpointId).sort()).toEqual(['ep_a', 'ep_b']);
    down = true;
    now += ENDPOINT_VIEW_FALLBACK_MS;
    expect((await d.endpoints('tn_1', true)).map((e) => e.endpointId).sort()).toEqual(['ep_a', 'ep_b']);
    // Past the limit, a failed read fails the publish again (a 503), never a silent skip.
    now += 1;
    await expect(d.endpoints('tn_1', true)).rejects.toThrow('query timed out');
  }, 20_000);

  it('16: endpoints unchanged since their last view are listed on a describe each, without a query', async () => {
    let now = 1_000_000;
    const rev: Record<string, number> = { ep_a: 0, ep_b: 0 };
    const queries: string[] = [];
    const stamped = (id: string) => ({ ...view(id), stamp: { runId: `run-${id}`, rev: rev[id]! } });
    const client = {
      workflow: {
        list: () =>
          (async function* () {
            yield { workflowId: 'ep_a' };
            yield { workflowId: 'ep_b' };
          })(),
        getHandle: (id: string) => ({
          query: async () => {
            queries.push(id);
            return stamped(id);
          },
          describe: async () => ({
            runId: `run-${id}`,
            status: { name: 'RUNNING' },
            memo: { [SNAPSHOT_MEMO_KEY]: rev[id] },
            raw: { pendingWorkflowTask: null },
          }),
        }),
      },
    } as unknown as Client;
    const d = new Directory(client, () => now);
    const first = await d.endpoints('tn_1', true);
    expect(queries.sort()).toEqual(['ep_a', 'ep_b']);
    // The stamp is the directory's bookkeeping: a tenant never sees it.
    expect(first.some((v) => 'stamp' in v)).toBe(false);

    queries.length = 0;
    now += 1001;
    expect((await d.endpoints('tn_1', true)).map((v) => v.endpointId).sort()).toEqual(['ep_a', 'ep_b']);
    expect(queries).toEqual([]);
    // ep_b changed (its memo's revision moved): only it is queried.
    rev.ep_b = 1;
    await d.endpoints('tn_1', true);
    expect(queries).toEqual(['ep_b']);
    // Past the trust period each is queried again, changed or not.
    queries.length = 0;
    now += ENDPOINT_VIEW_TRUST_MS;
    await d.endpoints('tn_1', true);
    expect(queries.sort()).toEqual(['ep_a', 'ep_b']);
  });
});
