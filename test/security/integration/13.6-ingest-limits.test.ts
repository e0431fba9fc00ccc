// Issue 13.6 (ingest), R-RH-INBOUND: a rate limit per source on POST /in/{id} (429
// rate_limited with Retry-After, limits in config), and negative caching of unknown ingest
// ids, so made-up ids cost Temporal one call, not one per request; an outage is a 503.
import {
  Client,
  Connection,
  defaultGrpcRetryOptions,
  makeGrpcRetryInterceptor,
  type ConnectionOptions,
} from '@temporalio/client';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../src/api/app.js';
import { dataConverterFor } from '../../../src/temporal/data-converter.js';
import { newTenant, type TenantSession } from '../../helpers/api.js';
import { startDevWorker } from '../../helpers/dev-worker.js';
import { freePort } from '../../helpers/ports.js';
import { Receiver } from '../../helpers/receiver.js';

type GrpcInterceptor = NonNullable<ConnectionOptions['interceptors']>[number];

const madeUp = () => `src_${randomBytes(16).toString('hex')}`;

describe('13.6 R-RH-INBOUND: ingest rate limit and unknown sources', () => {
  let w: Awaited<ReturnType<typeof startDevWorker>>;
  let app: ReturnType<typeof createApp>;
  let tenant: TenantSession;
  const dest = new Receiver();
  let destBase: string;

  beforeAll(async () => {
    [w, destBase] = await Promise.all([
      startDevWorker({ HERALD_INGEST_RATE_PER_SECOND: '0.5', HERALD_INGEST_BURST: '3' }),
      dest.start(),
    ]);
    app = createApp({ client: w.client, config: w.config });
    tenant = await newTenant(app, 'Rate Co');
  });
  afterAll(async () => {
    await w?.stop();
    await dest.stop();
  });

  const newSource = async (path: string) => {
    const res = await tenant.call('POST', '/v1/sources', { destinations: [{ url: `${destBase}${path}` }] });
    expect(res.status).toBe(201);
    return new URL(((await res.json()) as { source: { ingestUrl: string } }).source.ingestUrl).pathname;
  };
  const post = (to: { request: typeof app.request }, path: string) =>
    to.request(path, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' });

  it('13.6 R-RH-INBOUND: over its burst a source is answered 429 rate_limited problem+json with Retry-After and nothing more is forwarded; another source is unaffected', async () => {
    const busy = await newSource('/busy');
    const quiet = await newSource('/quiet');
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await post(app, busy)).status);
    expect(statuses).toEqual([202, 202, 202]);
    const over = await post(app, busy);
    expect(over.status).toBe(429);
    expect(over.headers.get('content-type')).toBe('application/problem+json');
    const retryAfter = Number(over.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1).toBe(true);
    expect(await over.json()).toMatchObject({ status: 429, code: 'rate_limited' });
    expect((await post(app, quiet)).status).toBe(202);
    await dest.waitFor(4);
    await new Promise((r) => setTimeout(r, 1500));
    expect(dest.requests.filter((r) => r.path === '/busy')).toHaveLength(3);
  });

  it('13.6 R-RH-INBOUND: 20 requests over 2.5 s to one made-up ingest id cost Temporal at most one call, all 404; with Temporal down the answer is 503, not 404', async () => {
    const calls: string[] = [];
    const counting: GrpcInterceptor = (options, nextCall) => {
      calls.push(options.method_definition.path);
      return nextCall(options) as ReturnType<GrpcInterceptor>;
    };
    const connection = await Connection.connect({
      address: w.address,
      interceptors: [counting, makeGrpcRetryInterceptor(defaultGrpcRetryOptions())],
    });
    try {
      const client = new Client({
        connection,
        namespace: 'default',
        dataConverter: dataConverterFor(w.config),
      });
      const counted = createApp({ client, config: w.config });
      // First lookup of the process (it also reads the list of legacy sources, once).
      expect((await post(counted, `/in/${madeUp()}`)).status).toBe(404);
      calls.length = 0;
      const id = madeUp();
      const answers: number[] = [];
      for (let i = 0; i < 20; i++) {
        const res = await post(counted, `/in/${id}`);
        answers.push(res.status);
        if (i === 0) expect(await res.json()).toMatchObject({ code: 'source_not_found' });
        await new Promise((r) => setTimeout(r, 125));
      }
      expect(answers).toEqual(Array(20).fill(404));
      expect(calls.length, calls.join(', ')).toBeLessThanOrEqual(1);
    } finally {
      await connection.close();
    }

    // Temporal unreachable (nothing listens; no retries, so the test does not wait for them).
    const down = Connection.lazy({ address: `127.0.0.1:${await freePort()}`, interceptors: [] });
    try {
      const offline = createApp({
        client: new Client({
          connection: down,
          namespace: 'default',
          dataConverter: dataConverterFor(w.config),
        }),
        config: w.config,
      });
      const res = await post(offline, `/in/${madeUp()}`);
      expect(res.status).toBe(503);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(res.headers.get('retry-after')).toBe('1');
      expect(await res.json()).toMatchObject({ status: 503, code: 'not_accepted' });
    } finally {
      await down.close();
    }
  });
});
