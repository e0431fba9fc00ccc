import type { Client } from '@temporalio/client';
import { Hono } from 'hono';
import { z } from 'zod';
import type { Config } from '../../config.js';
import { startDelivery } from '../../deliveries/start-delivery.js';
import { createPolicyResolver } from '../../deliveries/policy-resolver.js';
import { policyOverridesSchema, type PresetName } from '../../policy/policy.js';
import { checkEndpointUrl } from '../../policy/url-check.js';
import { PRESET_NAMES } from '../../policy/presets.js';
import { deliveryIdFor, newEventId } from '../../shared/ids.js';
import { problem, readJson, validationProblem } from '../problem.js';

const MAX_BODY_BYTES = 256 * 1024;

const targetSchema = z.strictObject({
  url: z.string().min(1),
  secrets: z.array(z.string().regex(/^whsec_[A-Za-z0-9+/=]+$/, 'must look like whsec_<base64>')).min(1).max(2),
  preset: z.enum(PRESET_NAMES as [PresetName, ...PresetName[]]).optional(),
  policy: policyOverridesSchema.optional(),
});

const publishSchema = z.strictObject({
  id: z.string().min(1).max(128).regex(/^[A-Za-z0-9_.:-]+$/, 'letters, digits and _ . : - only').optional(),
  type: z.string().min(1).max(128),
  payload: z.json(),
  // Until endpoints exist as resources, the publisher names the receivers directly.
  targets: z.array(targetSchema).min(1).max(100),
});

export interface EventsRouterDeps {
  client: Client;
  config: Config;
}

export function eventsRouter({ client, config }: EventsRouterDeps) {
  const app = new Hono();
  const resolvePolicy = createPolicyResolver(config);

  app.post('/', async (c) => {
    const length = Number(c.req.header('content-length') ?? 0);
    if (length > MAX_BODY_BYTES)
      return problem(c, 413, 'payload_too_large', `The event may be at most ${MAX_BODY_BYTES} bytes`);
    const json = await readJson(c);
    if (!json.ok) return json.response;
    const parsed = publishSchema.safeParse(json.value);
    if (!parsed.success) return validationProblem(c, parsed.error);
    const req = parsed.data;

    for (const [i, t] of req.targets.entries()) {
      const u = checkEndpointUrl(t.url, { allowInsecureHosts: config.HERALD_ALLOW_HTTP_HOSTS });
      if (!u.ok) return problem(c, 400, u.code, 'The target URL is not allowed', u.message, { path: `targets.${i}.url` });
    }

    const tenantId = 'default';
    const eventId = req.id ?? newEventId();
    const occurredAt = new Date().toISOString();
    const body = JSON.stringify({ type: req.type, timestamp: occurredAt, data: req.payload });
    const deliveries = await Promise.all(
      req.targets.map(async (t) => {
        const deliveryId = deliveryIdFor(tenantId, eventId, t.url);
        const result = await startDelivery(client, config.HERALD_TASK_QUEUE, {
          deliveryId,
          tenantId,
          endpointId: t.url,
          event: { id: eventId, type: req.type, occurredAt, body },
          target: { url: t.url, secrets: t.secrets },
          policy: resolvePolicy(t.preset ?? config.HERALD_DEFAULT_PRESET, t.policy),
          createdAt: occurredAt,
        });
        return { id: result.deliveryId, url: t.url, created: result.created };
      }),
    );
    return c.json({ eventId, deliveries }, 202);
  });

  return app;
}
