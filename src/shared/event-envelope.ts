import type { EventEnvelope } from './delivery-types.js';

/**
 * The event as every receiver gets it (R-SIGN: the exact body signed and sent on every
 * attempt). Built here only, whoever publishes: the API, HeraldClient.
 */
export function eventEnvelope(id: string, type: string, payload: unknown, now: Date): EventEnvelope {
  const occurredAt = now.toISOString();
  return { id, type, occurredAt, body: JSON.stringify({ type, timestamp: occurredAt, data: payload }) };
}
