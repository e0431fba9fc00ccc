import type { Client } from '@temporalio/client';
import { Hono } from 'hono';
import type { Config } from '../config.js';
import { problem } from './problem.js';
import { eventsRouter } from './routes/events.js';

export interface AppDeps {
  client: Client;
  config: Config;
}

/** The HTTP API, one router per resource; dependencies come in so tests can use any client. */
export function createApp(deps: AppDeps) {
  const app = new Hono();
  app.get('/healthz', (c) => c.json({ ok: true }));
  app.route('/v1/events', eventsRouter(deps));
  app.notFound((c) => problem(c, 404, 'not_found', 'No such resource'));
  app.onError((err, c) => {
    console.error('[herald:api] unhandled error', err);
    return problem(c, 500, 'internal_error', 'Herald could not complete the request');
  });
  return app;
}
