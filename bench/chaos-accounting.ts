import type { Arrival } from './chaos-receiver.js';

export interface Accepted {
  eventId: string;
  endpoint: number;
  deliveryIds: string[];
  at: number;
}

export interface Fault {
  kind: 'worker_kill' | 'api_kill' | 'temporal_restart' | 'postgres_restart';
  target: string;
  /** When the fault began (kill sent, restart begun). */
  at: number;
  /** When the process was back (restarted); 0 while it is not. */
  until: number;
}

/** GET /v1/deliveries/{id} as far as the accounting reads it. */
export interface FinalState {
  status: string;
  attemptCount?: number;
  attemptBudget?: number;
  responseCode?: number | null;
  lastError?: string;
  /** The attempt log, newest first; `finishedAt` is when the workflow recorded the outcome. */
  attempts?: Array<{ kind: string; attempt?: number; finishedAt?: string }>;
}

export interface AccountingInput {
  seed: number;
  events: number;
  endpoints: number;
  rate: number;
  policy: { maxAttempts: number; retryDelays: number[]; timeoutSeconds: number };
  goneEndpoint: number;
  accepted: Accepted[];
  rejected: number;
  publishRetries: number;
  arrivals: Arrival[];
  finals: Map<string, FinalState>;
  apiStatus: Map<string, string>;
  faults: Fault[];
  /**
   * Deliveries whose history records an attempt's lease running out (leaseRanOut), of those that had an attempt
   * repeated or whose 2xx the API does not know.
   */
  leaseExpired: Set<string>;
  lastFault: number;
  settledAt: number;
  publishStart: number;
  publishEnd: number;
  command: string;
}

/** temporal.api.enums.v1.TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE */
const TIMEOUT_TYPE_START_TO_CLOSE = 1;

/** A history event as far as `leaseRanOut` reads it. */
export interface LeaseEvidence {
  activityTaskTimedOutEventAttributes?: unknown;
  workflowTaskTimedOutEventAttributes?: { timeoutType?: number | null } | null;
  markerRecordedEventAttributes?: { failure?: { timeoutFailureInfo?: unknown } | null } | null;
}

/**
 * Whether a history event records an attempt's lease running out: a retry's activity timed
 * out, or the inline first attempt's, which runs inside the first workflow task (R-CRASH):
 * that task timing out once started (the worker died or was starved of CPU past the task
 * timeout; a sticky queue's schedule-to-start timeout re-runs nothing) or its local
 * activity's marker carrying a timeout. Either way Temporal hands the attempt to a worker
 * again under the same attempt number.
 */
export function leaseRanOut(e: LeaseEvidence): boolean {
  return !!(
    e.activityTaskTimedOutEventAttributes ||
    e.workflowTaskTimedOutEventAttributes?.timeoutType === TIMEOUT_TYPE_START_TO_CLOSE ||
    e.markerRecordedEventAttributes?.failure?.timeoutFailureInfo
  );
}

/** A fault overlaps [from, to] when it began in it or its process was still down then. */
function faultDuring(faults: Fault[], from: number, to: number): Fault | undefined {
  return faults.find((f) => f.at <= to && (f.until || f.at) >= from - 1000);
}

/** Ended `exhausted` with every attempt of its budget spent and no 2xx among them. */
function exhaustedWithout2xx(final: FinalState, seen: Arrival[], policy: AccountingInput['policy']): boolean {
  const spent = (final.attemptCount ?? 0) >= (final.attemptBudget ?? policy.maxAttempts);
  return final.status === 'exhausted' && spent && seen.every((s) => s.outcome !== 'ok');
}

/**
 * A 2xx the API does not know of is explained only by a fault during its attempt or a lease
 * timeout Temporal recorded for its delivery (the worker never reported the answer in time).
 */
function lost2xxExplained(input: AccountingInput, ok: Arrival): boolean {
  const timeoutMs = input.policy.timeoutSeconds * 1000;
  return (
    !!faultDuring(input.faults, ok.at - timeoutMs, ok.at + timeoutMs) || input.leaseExpired.has(ok.deliveryId)
  );
}

/**
 * Exhausted in the API with every attempt of the budget sent, and every 2xx among them lost
 * as `lost2xxExplained` says: the worker recorded no success, so the round failed as a whole.
 */
function exhaustedInApi(input: AccountingInput, eventId: string, seen: Arrival[]): boolean {
  const final = input.finals.get(eventId);
  if (final) return exhaustedWithout2xx(final, seen, input.policy);
  if (input.apiStatus.get(eventId) !== 'exhausted') return false;
  const attempts = new Set(seen.map((s) => s.attempt));
  for (let n = 1; n <= input.policy.maxAttempts; n++) if (!attempts.has(n)) return false;
  return seen.every((s) => s.outcome !== 'ok' || lost2xxExplained(input, s));
}

/**
 * When Herald learned of an exhausted delivery's last attempt: the workflow records it (and
 * then tells the endpoint) when its task runs, which under faults can be minutes after the
 * request reached the receiver. The receiver's time is the floor.
 */
function recordedAt(final: FinalState | undefined, seen: Arrival[]): number {
  const last = Math.max(...seen.map((s) => s.at));
  const row = final?.attempts?.find((a) => a.kind === 'attempt' && a.attempt === final.attemptCount);
  const recorded = row?.finishedAt ? Date.parse(row.finishedAt) : NaN;
  return Number.isFinite(recorded) ? Math.max(last, recorded) : last;
}

/**
 * When each endpoint (other than the gone one) was disabled by its health rule: when Herald
 * recorded the last attempt of its first delivery that spent every attempt with no 2xx
 * recorded (R-SMENGO-HEALTH). A 2xx the worker never recorded (killed as it came) counts as
 * the failure Herald saw.
 */
function disabledByExhaustion(input: AccountingInput, byEvent: Map<string, Arrival[]>): Map<number, number> {
  const out = new Map<number, number>();
  for (const a of input.accepted) {
    if (a.endpoint === input.goneEndpoint) continue;
    const seen = byEvent.get(a.eventId) ?? [];
    if (seen.length === 0 || !exhaustedInApi(input, a.eventId, seen)) continue;
    const at = recordedAt(input.finals.get(a.eventId), seen);
    out.set(a.endpoint, Math.min(out.get(a.endpoint) ?? Infinity, at));
  }
  return out;
}

/**
 * Every accepted event is either delivered (its receiver answered 2xx in time), or final in
 * the API exactly as the policy says: 410 on the gone endpoint, all attempts spent with no
 * 2xx among them, or ended by its endpoint's disable after such an exhausted delivery. Anything else is unexplained; an event neither delivered nor final
 * when the drain ended is lost.
 */
export function accountFor(input: AccountingInput) {
  const { arrivals, faults, policy } = input;
  const timeoutMs = policy.timeoutSeconds * 1000;
  const byEvent = new Map<string, Arrival[]>();
  for (const a of arrivals) {
    const list = byEvent.get(a.webhookId) ?? [];
    list.push(a);
    byEvent.set(a.webhookId, list);
  }

  let delivered = 0;
  let deadAsPolicy = 0;
  let lost = 0;
  const unexplained: Array<{ eventId: string; why: string }> = [];
  const deadReasons: Record<string, number> = {};
  let apiDisagreesExplained = 0;
  const disabledAt = disabledByExhaustion(input, byEvent);
  for (const a of input.accepted) {
    const seen = byEvent.get(a.eventId) ?? [];
    const ok = seen.find((s) => s.outcome === 'ok');
    const api = input.apiStatus.get(a.eventId);
    if (ok) {
      delivered++;
      // At-least-once: a 2xx whose answer the worker never recorded (killed, or it reported
      // after the attempt's lease, which Temporal records) is retried, and a later failure or
      // the endpoint's disable can still end it. Only such a fault or lease timeout explains it.
      if (api && api !== 'succeeded' && api !== 'delivering' && api !== 'pending') {
        if (lost2xxExplained(input, ok)) apiDisagreesExplained++;
        else unexplained.push({ eventId: a.eventId, why: `receiver saw 2xx, API says ${api}` });
      }
      continue;
    }
    const final = input.finals.get(a.eventId);
    if (!final) {
      lost++;
      continue;
    }
    if (a.endpoint === input.goneEndpoint) {
      // standard: a 410 disables the endpoint at once and dead-letters the delivery
      // (exhaust_and_disable); later events to it are dead-lettered or never fanned out.
      if (final.status === 'exhausted' || final.status === 'no_delivery' || final.status === 'dead') {
        deadAsPolicy++;
        const why = `${final.status}${final.responseCode ? ` ${final.responseCode}` : ''}: 410 endpoint`;
        deadReasons[why] = (deadReasons[why] ?? 0) + 1;
      } else if (final.status === 'failed' && /disabled|gone/i.test(final.lastError ?? '')) {
        // Published while the 410 was disabling the endpoint: ended without a request.
        deadAsPolicy++;
        const why = `failed: ${final.lastError}`;
        deadReasons[why] = (deadReasons[why] ?? 0) + 1;
      } else
        unexplained.push({
          eventId: a.eventId,
          why: `410 endpoint, status ${final.status} (${final.lastError ?? ''})`,
        });
      continue;
    }
    const disabled = disabledAt.get(a.endpoint);
    if (exhaustedWithout2xx(final, seen, policy)) {
      deadAsPolicy++;
      const why = `exhausted after ${final.attemptCount} attempts`;
      deadReasons[why] = (deadReasons[why] ?? 0) + 1;
    } else if (
      disabled !== undefined &&
      (final.status === 'no_delivery'
        ? a.at >= disabled
        : /endpoint_disabled/.test(final.lastError ?? '') &&
          ['dead', 'failed', 'exhausted'].includes(final.status) &&
          seen.every((s) => s.at <= disabled + timeoutMs + 1000))
    ) {
      // R-SMENGO-HEALTH (standard is "as smengo"): an exhausted delivery disables its endpoint;
      // what was pending dies `endpoint_disabled` and later events fan out to nothing. Explained
      // only when nothing was sent to the endpoint after the disable, and, for an event with no
      // delivery, when it was accepted after it.
      deadAsPolicy++;
      const why = `${final.status}: endpoint disabled after an exhausted delivery`;
      deadReasons[why] = (deadReasons[why] ?? 0) + 1;
    } else {
      unexplained.push({
        eventId: a.eventId,
        why: `${final.status} after ${final.attemptCount}/${final.attemptBudget} attempts (${final.lastError ?? ''})`,
      });
    }
  }

  // Duplicates: requests beyond the first for one delivery and attempt number.
  const firstOf = new Map<string, Arrival>();
  let duplicates = 0;
  let duplicatesExplained = 0;
  let duplicatesLeaseExpired = 0;
  const unexplainedDuplicates: Array<{
    webhookId: string;
    attempt: number;
    firstOutcome: string;
    firstAtSeconds: number;
    againAtSeconds: number;
  }> = [];
  for (const a of [...arrivals].sort((x, y) => x.at - y.at)) {
    const key = `${a.deliveryId}:${a.attempt}`;
    const first = firstOf.get(key);
    if (!first) {
      firstOf.set(key, a);
      continue;
    }
    duplicates++;
    if (faultDuring(faults, first.at - timeoutMs, a.at)) duplicatesExplained++;
    else if (input.leaseExpired.has(a.deliveryId)) {
      duplicatesExplained++;
      duplicatesLeaseExpired++;
    } else
      unexplainedDuplicates.push({
        webhookId: a.webhookId,
        attempt: a.attempt,
        firstOutcome: first.outcome,
        firstAtSeconds: Math.round((first.at - input.publishStart) / 100) / 10,
        againAtSeconds: Math.round((a.at - input.publishStart) / 100) / 10,
      });
  }

  // The longest any unfinished delivery waited between a fault and its next request.
  let longestGap = 0;
  for (const list of byEvent.values()) {
    const sorted = [...list].sort((x, y) => x.at - y.at);
    const doneAt = sorted.find((s) => s.outcome === 'ok')?.at ?? Infinity;
    for (const f of faults) {
      if (f.at >= doneAt || sorted[0]!.at > f.at) continue;
      const next = sorted.find((s) => s.at >= f.at);
      if (next) longestGap = Math.max(longestGap, next.at - f.at);
    }
  }

  const figures = {
    accepted: input.accepted.length,
    rejected: input.rejected,
    delivered,
    deadAsPolicy,
    lost,
    unexplained: unexplained.length + unexplainedDuplicates.length,
    duplicates,
    duplicatesExplained,
    duplicatesLeaseExpired,
    apiDisagreesExplainedByFault: apiDisagreesExplained,
    requests: arrivals.length,
    publishRetries: input.publishRetries,
    drainSecondsAfterLastFault: input.settledAt
      ? Math.round((input.settledAt - input.lastFault) / 100) / 10
      : null,
    longestGapAfterFaultSeconds: Math.round(longestGap / 100) / 10,
    publishSeconds: Math.round((input.publishEnd - input.publishStart) / 100) / 10,
  };
  const outcomes: Record<string, number> = {};
  for (const a of arrivals) outcomes[a.outcome] = (outcomes[a.outcome] ?? 0) + 1;
  return {
    command: input.command,
    seed: input.seed,
    events: input.events,
    endpoints: input.endpoints,
    ratePerSecond: input.rate,
    policy,
    figures,
    deadReasons,
    receiverOutcomes: outcomes,
    faults: faults.map((f) => ({
      kind: f.kind,
      target: f.target,
      atSeconds: Math.round((f.at - input.publishStart) / 100) / 10,
      downSeconds: f.until ? Math.round((f.until - f.at) / 100) / 10 : null,
    })),
    unexplained: unexplained.slice(0, 50),
    unexplainedDuplicates: unexplainedDuplicates.slice(0, 50),
    finishedAt: new Date().toISOString(),
  };
}
