import { deadLettersNotOffered, retryDeadLetter, retryDeadLetters } from '../../core/dead-letters.js';
import { presetsOffering, recoveryOf } from '../../policy/policy.js';
import { boundedMap } from '../../shared/bounded-map.js';
import { attemptCount, lastError } from '../../shared/delivery-view.js';
import { SA_ENDPOINT } from '../../shared/search-attributes.js';
import { temporalDeadLetterStore } from '../../store/dead-letters.js';
import {
  deliveriesQuery,
  deliveryState,
  newestDeliveries,
  presetIn,
  reopenable,
} from '../../store/deliveries.js';
import { eq, statusClause } from '../../store/visibility.js';
import type { TenantEnv } from '../auth.js';
import { router } from '../openapi.js';
import { orProblem, orProblemNow } from '../refusal-problem.js';
import type { RouterDeps } from '../router-deps.js';
import * as routes from './dead-letters.routes.js';

/** Dead letters shown by the list: only presets that keep one (SPEC §3 "manual recovery"). */
const listedPresets = () => presetIn(presetsOffering((o) => o.deadLetterList));

export function deadLettersRouter(deps: RouterDeps) {
  const app = router<TenantEnv>();
  const { client } = deps;
  const store = temporalDeadLetterStore(client);
  const clock = deps.now ?? Date.now;

  app.openapi(routes.listDeadLetters, async (c) => {
    const tenantId = c.get('tenantId');
    const { endpointId, limit } = c.req.valid('query');
    if (endpointId) {
      // Another tenant's endpoint and a missing one just list nothing, as before.
      const preset = (await deps.directory.endpoint(tenantId, endpointId))?.config.preset;
      if (preset && !recoveryOf(preset).deadLetterList)
        orProblemNow(() => deadLettersNotOffered(endpointId, preset));
    }
    const query = deliveriesQuery(
      tenantId,
      statusClause('exhausted'),
      listedPresets(),
      endpointId && eq(SA_ENDPOINT, endpointId),
    );
    const refs = await newestDeliveries(client, query, limit);
    const now = clock();
    const rows = await boundedMap(refs, 16, async (ref) => {
      const s = await deliveryState(client, ref.id, ref);
      // Visibility lags: a delivery retried a moment ago is no longer a dead letter.
      if (!s || s.status !== 'exhausted') return undefined;
      return {
        id: ref.id,
        endpointId: ref.endpointId,
        eventType: ref.eventType,
        eventId: ref.eventId,
        createdAt: ref.createdAt,
        attemptCount: attemptCount(s),
        lastError: lastError(s) ?? null,
        // Issue 16: retryable while its preset's window is open (closed deliveries too).
        retryable: recoveryOf(ref.preset).deadLetterRetry && reopenable(ref, now),
      };
    });
    return c.json({ data: rows.filter((r) => r !== undefined) }, 200);
  });

  app.openapi(routes.retryMany, async (c) => {
    const { retried, failed } = await retryDeadLetters(
      store,
      c.get('tenantId'),
      c.req.valid('json'),
      clock(),
    );
    return c.json({ retried, failed }, 202);
  });

  app.openapi(routes.retryOne, async (c) =>
    c.json(await orProblem(retryDeadLetter(store, c.get('tenantId'), c.req.valid('param').id, clock())), 202),
  );

  return app;
}
