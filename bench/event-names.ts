/**
 * `--herald-names-events`: the bench publishes without an event id and Herald makes one (so the
 * event has no record workflow, issue 16 (4)). Scenarios still name each event with an id of
 * their own; this maps it to the id Herald answered, which receivers see as `webhook-id`.
 */
export const heraldNamed = new Map<string, string>();

/** The `webhook-id` receivers see for the scenario's event id. */
export const webhookIdOf = (benchId: string): string => heraldNamed.get(benchId) ?? benchId;

/** A receiver's arrivals by `webhook-id`, looked up by the scenario's event id. */
export class Arrivals<V> extends Map<string, V> {
  override has(id: string): boolean {
    return super.has(webhookIdOf(id));
  }
  override get(id: string): V | undefined {
    return super.get(webhookIdOf(id));
  }
}
