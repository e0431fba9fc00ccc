import { refuse } from './refusal.js';

/** A kind of workflow a tenant may have only so many of (issue 13.6): endpoints, sources. */
export interface TenantCap {
  /** Runs a tenant's creates one after another, so "count, then start" holds under concurrency. */
  oneAtATime<T>(tenantId: string, task: () => Promise<T>): Promise<T>;
  max: number;
  /** `endpoint`, `source`: the refusal's code is `<noun>_limit_reached`. */
  noun: string;
}

/**
 * Starts one more for the tenant, unless it has `cap.max` already (409 `<noun>_limit_reached`,
 * with `max<Noun>s` in the problem). Counted inside the tenant's turn, so racing creates
 * cannot pass the same count.
 */
export function startWithinCap(
  cap: TenantCap,
  tenantId: string,
  count: () => Promise<number>,
  start: () => Promise<void>,
): Promise<void> {
  return cap.oneAtATime(tenantId, async () => {
    if ((await count()) >= cap.max) {
      const Noun = cap.noun[0]!.toUpperCase() + cap.noun.slice(1);
      refuse(
        'conflict',
        `${cap.noun}_limit_reached`,
        `At most ${cap.max} ${cap.noun}s per tenant`,
        undefined,
        {
          [`max${Noun}s`]: cap.max,
        },
      );
    }
    await start();
  });
}
