import { boundedMap } from '../../shared/bounded-map.js';
import { presentState, rowOf } from '../../shared/delivery-view.js';
import { SA_ENDPOINT, SA_EVENT_TYPE } from '../../shared/search-attributes.js';
import {
  deliveriesQuery,
  deliveryBody,
  deliveryState,
  newestDeliveries,
  ownedDelivery,
} from '../../store/deliveries.js';
import { eq, statusClause } from '../../store/visibility.js';
import type { TenantEnv } from '../auth.js';
import { router } from '../openapi.js';
import { fail } from '../problem.js';
import type { RouterDeps } from '../router-deps.js';
import * as routes from './deliveries.routes.js';

/** The recent view's size: one screen of the portal's dashboard. */
const RECENT = 25;

/** R-LOG, R-RESP, R-SMENGO-LOG: the delivery log. */
export function deliveriesRouter(deps: RouterDeps) {
  const app = router<TenantEnv>();
  const { client } = deps;

  app.openapi(routes.listDeliveries, async (c) => {
    const q = c.req.valid('query');
    const since = q.since ? new Date(q.since) : undefined;
    const until = q.until ? new Date(q.until) : undefined;
    if (since && until && since > until) fail(400, 'invalid_window', '`since` is after `until`');
    const query = deliveriesQuery(
      c.get('tenantId'),
      q.endpointId && eq(SA_ENDPOINT, q.endpointId),
      // Issue 16: the status as the index shows it, closed deliveries included.
      q.status && statusClause(q.status),
      q.eventType && eq(SA_EVENT_TYPE, q.eventType),
    );
    const refs = await newestDeliveries(client, query, q.limit, { since, until });
    return c.json({ data: refs.map(rowOf) }, 200);
  });

  app.openapi(routes.recentDeliveries, async (c) => {
    const refs = await newestDeliveries(client, deliveriesQuery(c.get('tenantId')), RECENT);
    const rows = await boundedMap(refs, RECENT, async (ref) => {
      // Issue 14.11: each delivery's body from its own input, not from the event record.
      const [s, b] = await Promise.all([deliveryState(client, ref.id, ref), deliveryBody(client, ref.id)]);
      return s ? presentState(ref, s, b) : undefined;
    });
    return c.json({ data: rows.filter((r) => r !== undefined) }, 200);
  });

  app.openapi(routes.getDelivery, async (c) => {
    const owned = await ownedDelivery(client, c.get('tenantId'), c.req.valid('param').id);
    if (!owned) fail(404, 'delivery_not_found', 'No such delivery');
    const { ref } = owned;
    // Issue 14.11: the body from the delivery's own input, which lives as long as the
    // delivery (Dong Tien: 90 days), not from the event record (deleted after 30).
    // Issue 16: a closed delivery's state is its result, read without a worker.
    const [s, body] = await Promise.all([deliveryState(client, ref.id, ref), deliveryBody(client, ref.id)]);
    if (!s) fail(404, 'delivery_not_found', 'No such delivery', 'Its log is past the retention period');
    return c.json(presentState(ref, s, body), 200);
  });

  return app;
}
