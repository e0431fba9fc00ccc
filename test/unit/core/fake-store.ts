import { initialHealth } from '../../../src/health/common.js';
import type { HealthState } from '../../../src/health/types.js';
import type { PresetName } from '../../../src/policy/policy.js';
import type { DeliveryInput } from '../../../src/shared/delivery-types.js';
import type { EndpointView } from '../../../src/shared/endpoint-types.js';
import {
  eventRecordOf,
  eventRecordOfDelivery,
  type EventInput,
  type EventRecord,
} from '../../../src/shared/event-types.js';
import { eventWorkflowId } from '../../../src/shared/ids.js';
import type { PublishStore } from '../../../src/store/events.js';

/**
 * An in-memory PublishStore: Temporal's guarantees that publishing relies on, kept as data
 * (a record starts once per event id, a delivery once per id), so the use case's rules can
 * be tested without a server.
 */
export class FakePublishStore implements PublishStore {
  readonly endpoints = new Map<string, EndpointView>();
  readonly records = new Map<string, EventRecord>();
  readonly deliveries = new Map<string, DeliveryInput>();
  readonly held = new Map<string, number>();
  readonly holdFullReports: string[] = [];
  heldCountReads = 0;

  addEndpoint(
    tenantId: string,
    endpointId: string,
    preset: PresetName,
    o: { health?: Partial<HealthState>; eventTypes?: string[] } = {},
  ): EndpointView {
    const view: EndpointView = {
      endpointId,
      tenantId,
      config: { url: `https://example.test/${endpointId}`, preset, eventTypes: o.eventTypes },
      health: { ...initialHealth(), ...o.health },
      secretCount: 1,
      createdAt: this.endpoints.size,
      deleted: false,
    };
    this.endpoints.set(endpointId, view);
    return view;
  }

  async liveEndpoints(tenantId: string) {
    return [...this.endpoints.values()].filter((e) => e.tenantId === tenantId && !e.deleted);
  }
  async ownedEndpoint(tenantId: string, endpointId: string) {
    const e = this.endpoints.get(endpointId);
    return e && e.tenantId === tenantId && !e.deleted ? e : undefined;
  }
  async heldCount(endpointId: string) {
    this.heldCountReads++;
    return this.held.get(endpointId) ?? 0;
  }
  async startEventRecord(input: EventInput) {
    const key = `${input.tenantId}/${input.event.id}`;
    if (this.records.has(key) || this.deliveries.has(eventWorkflowId(input.tenantId, input.event.id))) return false;
    this.records.set(key, eventRecordOf(input));
    return true;
  }
  async startRecordDelivery(d: DeliveryInput) {
    const key = `${d.tenantId}/${d.event.id}`;
    if (this.records.has(key) || this.deliveries.has(d.deliveryId)) return false;
    this.deliveries.set(d.deliveryId, d);
    return true;
  }
  async eventRecord(tenantId: string, eventId: string) {
    const holder = this.deliveries.get(eventWorkflowId(tenantId, eventId));
    return holder ? eventRecordOfDelivery(holder) : this.records.get(`${tenantId}/${eventId}`)!;
  }
  async startDeliveries(ds: DeliveryInput[]) {
    for (const d of ds) if (!this.deliveries.has(d.deliveryId)) this.deliveries.set(d.deliveryId, d);
  }
  async reportHoldFull(endpointId: string) {
    this.holdFullReports.push(endpointId);
  }
}
