import { createRoute, z } from '@hono/zod-openapi';
import { boundedMap } from '../../shared/bounded-map.js';
import { presentState, rowOf } from '../../shared/delivery-view.js';
import { SA_ENDPOINT, SA_EVENT_TYPE, SA_STATUS } from '../../shared/search-attributes.js';
import {
  deliveriesQuery,
  deliveryBody,
  deliveryState,
  newestDeliveries,
  ownedDelivery,
} from '../../store/deliveries.js';
import { eq } from '../../store/visibility.js';
import type { TenantEnv } from '../auth.js';
import {
  deliveryListQuery as listQuery,
  deliveryParams,
  deliverySchema,
  rowSchema,
} from '../delivery-schemas.js';
import type { RouterDeps } from '../router-deps.js';
import { fail } from '../problem.js';
import { problemResponse, router } from '../openapi.js';

/** R-LOG, R-RESP, R-SMENGO-LOG: the delivery log. */
export function deliveriesRouter(deps: RouterDeps) {
  const app = router<TenantEnv>();
  const { client } = deps;

  app.openapi(
    createRoute({
      method: 'get',
      path: '/',
      summary:
        "The tenant's deliveries, newest first, filtered by endpoint, status, event type and start time",
      request: { query: listQuery },
      responses: {
        200: {
          description: 'Deliveries',
          content: { 'application/json': { schema: z.object({ data: z.array(rowSchema) }) } },
        },
        400: problemResponse('Invalid filter'),
      },
    }),
    async (c) => {
      const tenantId = c.get('tenantId');
      const q = c.req.valid('query');
      const since = q.since ? new Date(q.since) : undefined;
      const until = q.until ? new Date(q.until) : undefined;
      if (since && until && since > until) fail(400, 'invalid_window', '`since` is after `until`');
      const query = deliveriesQuery(
        tenantId,
        q.endpointId && eq(SA_ENDPOINT, q.endpointId),
        q.status && eq(SA_STATUS, q.status),
        q.eventType && eq(SA_EVENT_TYPE, q.eventType),
      );
      const refs = await newestDeliveries(client, query, q.limit, { since, until });
      return c.json({ data: refs.map(rowOf) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/recent',
      summary:
        'The 25 newest deliveries across all endpoints: time, event type, response code, attempts and body',
      responses: {
        200: {
          description: 'Recent deliveries',
          content: { 'application/json': { schema: z.object({ data: z.array(deliverySchema) }) } },
        },
      },
    }),
    async (c) => {
      const tenantId = c.get('tenantId');
      const refs = await newestDeliveries(client, deliveriesQuery(tenantId), 25);
      const rows = await boundedMap(refs, 25, async (ref) => {
        // Issue 14.11: each delivery's body from its own input, not from the event record.
        const [s, b] = await Promise.all([deliveryState(client, ref.id), deliveryBody(client, ref.id)]);
        return s ? presentState(ref, s, b) : undefined;
      });
      return c.json({ data: rows.filter((r) => r !== undefined) }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: 'get',
      path: '/{id}',
      summary: 'One delivery with its event body and attempt log, newest first',
      request: { params: deliveryParams },
      responses: {
        200: { description: 'The delivery', content: { 'application/json': { schema: deliverySchema } } },
        404: problemResponse('No such delivery'),
      },
    }),
    async (c) => {
      const tenantId = c.get('tenantId');
      const owned = await ownedDelivery(client, tenantId, c.req.valid('param').id);
      if (!owned) fail(404, 'delivery_not_found', 'No such delivery');
      const { ref } = owned;
      // Issue 14.11: the body from the delivery's own input, which lives as long as the
      // delivery (Dong Tien: 90 days), not from the event record (deleted after 30).
      const [s, body] = await Promise.all([deliveryState(client, ref.id), deliveryBody(client, ref.id)]);
      if (!s) fail(404, 'delivery_not_found', 'No such delivery', 'Its log is past the retention period');
      return c.json(presentState(ref, s, body), 200);
    },
  );

  return app;
}
