import type { PolicyResolver } from '../deliveries/policy-resolver.js';
import { admitNewEvent } from '../health/engine.js';
import { DT_HOLD_LIMIT, DT_HOLD_OVERFLOW_CODE } from '../health/index.js';
import type { PolicyOverrides, PresetName } from '../policy/policy.js';
import { matchesEventType } from '../policy/event-filter.js';
import { checkEndpointUrl, type UrlCheckOptions } from '../policy/url-check.js';
import type { DeliveryInput } from '../shared/delivery-types.js';
import type { EndpointView } from '../shared/endpoint-types.js';
import { eventEnvelope } from '../shared/event-envelope.js';
import {
  eventRecordOf,
  eventRecordOfDelivery,
  type EventInput,
  type EventRecord,
} from '../shared/event-types.js';
import { deliveryIdFor, eventWorkflowId, newEventId } from '../shared/ids.js';
import type { PublishStore } from '../store/events.js';
import { refuse } from './refusal.js';

/** The part of the configuration publishing reads. */
export interface PublishSettings {
  /** Issue 13.6: one publish reaches at most this many one-off targets. */
  maxTargets: number;
  /** The preset of a one-off target that names none. */
  defaultPreset: PresetName;
  urlCheck: UrlCheckOptions;
  resolvePolicy: PolicyResolver;
}

export interface PublishRequest {
  tenantId: string;
  /** R-IDEMP: the same id publishes once; a new one is made when absent. */
  eventId?: string;
  type: string;
  payload: unknown;
  /**
   * Only these endpoints of the tenant (HeraldClient); every matching endpoint when absent.
   * Each goes out under its own endpoint's preset, policy and health, whoever publishes.
   */
  endpointIds?: readonly string[];
  /** One-off receivers outside the tenant's endpoints. */
  targets?: ReadonlyArray<{ url: string; secrets: string[]; preset?: PresetName; policy?: PolicyOverrides }>;
}

/** What a publish answers, the first time and every time after for the same event id. */
export type PublishedEvent = Pick<EventRecord, 'eventId' | 'type' | 'occurredAt' | 'deliveries' | 'skipped'>;

const published = (r: EventRecord): PublishedEvent => ({
  eventId: r.eventId,
  type: r.type,
  occurredAt: r.occurredAt,
  deliveries: r.deliveries,
  skipped: r.skipped,
});

/**
 * Issue 16 (4): an event needs no record workflow (`eventWorkflow`) when its deliveries can say
 * all that record would: Herald made its id, so no repeat can name it and nothing has to
 * decide R-IDEMP; at least one delivery carries its body and type; and no endpoint was skipped,
 * the one thing only the record knew. One of its deliveries is marked as the record
 * (`HeraldEventRecord`) for the events list. An event named by the publisher needs one
 * workflow whose REJECT_DUPLICATE start decides which request owns the id (the deliveries'
 * own ids cannot, because two requests may see different endpoints): its record, or its first
 * delivery (`recordHeldByFirstDelivery`).
 */
export function recordedByItsDeliveries(
  req: Pick<PublishRequest, 'eventId'>,
  deliveries: readonly unknown[],
  skipped: readonly unknown[],
): boolean {
  return req.eventId === undefined && deliveries.length > 0 && skipped.length === 0;
}

/** At most this many other deliveries ride in the input of the delivery that holds the event id. */
export const MAX_SIBLINGS_CARRIED = 32;

/**
 * Issue 16 (4): an event its publisher named needs no record workflow either when its first
 * delivery can hold the event id in the record's place: started under `eventWorkflowId` with
 * REJECT_DUPLICATE, so that start decides R-IDEMP exactly as the record's did, whichever
 * endpoints a repeat sees; its input carries the other deliveries (`siblings`) for the repeat
 * to answer with and start again. Only a plain delivery to an endpoint holds it: an ordered or
 * rate-limited one is handed to its endpoint before it starts, which a repeat must not do for
 * deliveries it will not start, and an overflowing hold is told again by a repeat, from the
 * deliveries the record lists. An event that skipped an endpoint, or reached none, keeps its
 * record: nothing else could be read back.
 */
export function recordHeldByFirstDelivery(
  req: Pick<PublishRequest, 'eventId'>,
  deliveries: ReadonlyArray<Pick<DeliveryInput, 'target' | 'ordered' | 'paced' | 'deadLetterOnArrival'>>,
  skipped: readonly unknown[],
): boolean {
  return (
    req.eventId !== undefined &&
    deliveries.length > 0 &&
    deliveries.length <= MAX_SIBLINGS_CARRIED + 1 &&
    skipped.length === 0 &&
    deliveries[0]!.target === undefined &&
    deliveries.every((d) => !d.ordered && !d.paced && d.deadLetterOnArrival === undefined)
  );
}

/** Issue 14.10: the deliveries created straight as dead letters because a hold was full. */
export const HOLD_OVERFLOW_CODE = `hold_overflow_over_${DT_HOLD_LIMIT}`;
const overflowed = <D extends Pick<DeliveryInput, 'deadLetterOnArrival'>>(ds: readonly D[]) =>
  ds.filter((d) => d.deadLetterOnArrival?.startsWith(DT_HOLD_OVERFLOW_CODE));

/**
 * R-IDEMP, R-FILTER, R-DT-HEALTH: publishes one event to the tenant's matching endpoints.
 *
 * Whatever holds a named event's id, its record or its first delivery, starts first: that
 * REJECT_DUPLICATE start decides which request owns the event id, so a repeat never starts
 * deliveries of its own; it answers with the first request's record and starts that
 * request's deliveries again (a no-op unless the first died half way through its fan-out).
 * Both kinds answer a repeat the same, so a repeat that sees other endpoints than the first
 * (one now skipped, or none skipped any more) is still refused. Each endpoint's delivery takes that endpoint's preset and policy,
 * its event-type filter and its health admission (Dong Tien's hold cap included).
 */
export async function publishEvent(
  store: PublishStore,
  settings: PublishSettings,
  req: PublishRequest,
  now: Date = new Date(),
): Promise<PublishedEvent> {
  const targets = req.targets ?? [];
  if (targets.length > settings.maxTargets)
    refuse(
      'invalid',
      'too_many_targets',
      `A publish may name at most ${settings.maxTargets} targets`,
      undefined,
      {
        path: 'targets',
        maxTargets: settings.maxTargets,
      },
    );
  const { tenantId } = req;
  const eventId = req.eventId ?? newEventId();
  const event = eventEnvelope(eventId, req.type, req.payload, now);
  const createdAt = event.occurredAt;

  const deliveries: DeliveryInput[] = [];
  const skipped: EventInput['skipped'] = [];
  const endpoints: EndpointView[] = [];
  if (req.endpointIds) {
    // Named endpoints are read one by one (fresh, tenant-scoped), not from the cached list.
    const ids = [...new Set(req.endpointIds)];
    const found = await Promise.all(ids.map((id) => store.ownedEndpoint(tenantId, id)));
    for (const [i, ep] of found.entries()) {
      if (ep) endpoints.push(ep);
      else skipped.push({ endpointId: ids[i]!, reason: 'endpoint_not_found' });
    }
  } else endpoints.push(...(await store.liveEndpoints(tenantId)));
  for (const ep of endpoints) {
    if (!matchesEventType(ep.config.eventTypes, req.type)) continue;
    const preset = ep.config.preset;
    // Only an endpoint that holds new events needs to know how many it holds already.
    let admission = admitNewEvent(preset, ep.health, 0);
    if (admission === 'hold')
      admission = admitNewEvent(preset, ep.health, await store.heldCount(ep.endpointId));
    if (admission === 'skip') {
      skipped.push({ endpointId: ep.endpointId, reason: `endpoint_${ep.health.status}` });
      continue;
    }
    deliveries.push({
      deliveryId: deliveryIdFor(tenantId, eventId, ep.endpointId),
      tenantId,
      endpointId: ep.endpointId,
      event,
      policy: settings.resolvePolicy(preset, ep.config.policy),
      createdAt,
      ...(admission === 'dead_letter' ? { deadLetterOnArrival: HOLD_OVERFLOW_CODE } : {}),
      // Issue 17: an ordered endpoint's delivery takes its place in the endpoint's queue.
      ...(ep.config.ordering === 'fifo' && admission !== 'dead_letter' ? { ordered: true as const } : {}),
      // Issue 17: its turn in the endpoint's rate limit is reserved before it starts. Not for
      // an endpoint holding events (Dong Tien's drain hands out turns to running deliveries).
      ...(ep.config.rateLimit && admission === 'queue' ? { paced: true as const } : {}),
    });
  }
  for (const [i, t] of targets.entries()) {
    const u = checkEndpointUrl(t.url, settings.urlCheck);
    if (!u.ok)
      refuse('invalid', u.code, 'The target URL is not allowed', u.message, { path: `targets.${i}.url` });
    deliveries.push({
      deliveryId: deliveryIdFor(tenantId, eventId, t.url),
      tenantId,
      endpointId: `target:${new URL(t.url).host}`,
      event,
      target: { url: t.url, secrets: t.secrets },
      policy: settings.resolvePolicy(t.preset ?? settings.defaultPreset, t.policy),
      createdAt,
    });
  }

  // The envelope travels once in the record (N copies of a 256 KiB body would exceed
  // Temporal's 2 MB payload limit); each delivery carries its own.
  // Built only where the event has a record workflow of its own or no holder, and once.
  let input: EventInput | undefined;
  const recordInput = (): EventInput =>
    (input ??= {
      tenantId,
      event,
      deliveries: deliveries.map(({ event: _e, ...d }) => d),
      skipped,
      deliveriesStarted: true,
    });
  // Issue 14.10: an overflow is told before the deliveries start, and again by a repeat,
  // so an accepted overflow never leaves the endpoint without hearing of it.
  const reportOverflows = (ds: ReadonlyArray<Pick<DeliveryInput, 'endpointId' | 'deadLetterOnArrival'>>) =>
    Promise.all(overflowed(ds).map((d) => store.reportHoldFull(d.endpointId, now.getTime())));

  const recordless = recordedByItsDeliveries(req, deliveries, skipped);
  const held = !recordless && recordHeldByFirstDelivery(req, deliveries, skipped);
  if (held) {
    const [first, ...rest] = deliveries;
    deliveries[0] = {
      ...first!,
      deliveryId: eventWorkflowId(tenantId, eventId),
      eventRecord: true,
      ...(rest.length > 0 ? { siblings: rest.map(({ event: _e, ...d }) => d) } : {}),
    };
  }
  const owned = held
    ? await store.startRecordDelivery(deliveries[0]!)
    : recordless || (await store.startEventRecord(recordInput()));
  if (!owned) {
    const first = await store.eventRecord(tenantId, eventId);
    const again = first.started ?? [];
    await reportOverflows(again);
    const envelope = { id: first.eventId, type: first.type, occurredAt: first.occurredAt, body: first.body };
    await store.startDeliveries(again.map((d) => ({ ...d, event: d.event ?? envelope })));
    return published(first);
  }
  if (held) {
    if (deliveries.length > 1) await store.startDeliveries(deliveries.slice(1));
    // The answer a repeat gives: read back from the holder's input.
    return published(eventRecordOfDelivery(deliveries[0]!));
  }
  await reportOverflows(deliveries);
  if (recordless) {
    // The one that stands as the record goes first: a publish that fails half way (503)
    // leaves no started delivery whose event the list cannot find.
    const [record, ...rest] = deliveries;
    await store.startDeliveries([{ ...record!, eventRecord: true }]);
    if (rest.length > 0) await store.startDeliveries(rest);
  } else await store.startDeliveries(deliveries);
  return published(eventRecordOf(recordInput()));
}
