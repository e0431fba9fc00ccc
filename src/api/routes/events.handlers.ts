import type { Client } from '@temporalio/client';
import type { Config } from '../../config.js';
import { publishEvent } from '../../core/publish-event.js';
import { settingsFrom } from '../../settings.js';
import type { EventRecord } from '../../shared/event-types.js';
import type { Directory } from '../../store/directory.js';
import { listEvents, readEvent } from '../../store/event-log.js';
import { temporalPublishStore } from '../../store/events.js';
import { heraldMetrics } from '../../observability/metrics.js';
import type { TenantEnv } from '../auth.js';
import { router } from '../openapi.js';
import { fail, problem } from '../problem.js';
import { TokenBuckets } from '../rate-limit.js';
import { eagerAllowance } from '../eager-allowance.js';
import { MAX_EVENT_DEPTH, maxJsonDepth } from '../json-depth.js';
import { orProblem } from '../refusal-problem.js';
import * as routes from './events.routes.js';

export function eventsRouter(deps: {
  client: Client;
  config: Config;
  directory: Directory;
  eagerStart?: boolean;
}) {
  const app = router<TenantEnv>();
  const { client, config, directory } = deps;
  const store = temporalPublishStore({
    client,
    taskQueue: settingsFrom(config).taskQueue,
    directory,
    eagerStart: deps.eagerStart ? eagerAllowance(config.HERALD_EAGER_STARTS_PER_ENDPOINT) : undefined,
    startsInFlight: config.HERALD_STARTS_IN_FLIGHT,
    startsWaiting: heraldMetrics.deliveryStartsWaiting,
  });
  const settings = settingsFrom(config).publish;

  // Issue 13.6: publishes per tenant, in this process (see rate-limit.ts).
  const publishes = new TokenBuckets({
    ratePerSecond: config.HERALD_PUBLISH_RATE_PER_SECOND,
    burst: config.HERALD_PUBLISH_BURST,
  });

  // The app's streaming limit (body-limit.ts, MAX_EVENT_BYTES for a publish) has refused a
  // larger body before this reads it, however it was sent; the depth is checked before JSON
  // parsing, so a deep body costs nothing.
  app.use('/', async (c, next) => {
    if (c.req.method !== 'POST') return next();
    const rate = publishes.take(c.get('tenantId'), Date.now());
    if (!rate.allowed) {
      const seconds = Math.max(1, Math.ceil(rate.retryAfterMs / 1000));
      const res = problem(
        c,
        429,
        'rate_limited',
        'Too many publishes',
        `At most ${config.HERALD_PUBLISH_RATE_PER_SECOND} per second (bursts of ${config.HERALD_PUBLISH_BURST}); retry after ${seconds} s.`,
        { retryAfterSeconds: seconds },
      );
      res.headers.set('retry-after', String(seconds));
      return res;
    }
    await next();
  });
  app.use('/', maxJsonDepth(MAX_EVENT_DEPTH, 'An event'));

  app.openapi(routes.publishEvent, async (c) => {
    const body = c.req.valid('json');
    const published = await orProblem(
      publishEvent(store, settings, {
        tenantId: c.get('tenantId'),
        // R-IDEMP: the event id, else the Idempotency-Key header, names the event.
        eventId: body.id ?? c.req.valid('header')['idempotency-key'],
        type: body.type,
        payload: body.payload,
        targets: body.targets,
      }),
    );
    return c.json(published, 202);
  });

  app.openapi(routes.listEvents, async (c) =>
    c.json({ data: await listEvents(client, c.get('tenantId'), c.req.valid('query')) }, 200),
  );

  app.openapi(routes.getEvent, async (c) => {
    const rec = await readEvent(client, c.get('tenantId'), c.req.valid('param').eventId);
    if (!rec) fail(404, 'event_not_found', 'No such event');
    const payload = (JSON.parse(rec.body) as { data: unknown }).data;
    // Read back from its deliveries past its record's retention, the event has no `skipped`:
    // only the record knew.
    const { eventId, type, occurredAt, deliveries } = rec;
    const shown = 'skipped' in rec ? publicRecord(rec) : { eventId, type, occurredAt, deliveries };
    return c.json({ ...shown, payload }, 200);
  });

  return app;
}

function publicRecord(r: EventRecord) {
  return {
    eventId: r.eventId,
    type: r.type,
    occurredAt: r.occurredAt,
    deliveries: r.deliveries,
    skipped: r.skipped,
  };
}
