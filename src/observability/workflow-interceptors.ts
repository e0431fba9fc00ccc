// Issue 20: delivery and endpoint metrics, seen from inside the workflows without changing
// what they do. The interceptor only watches: the send activity's input and result, and
// the status search attribute the workflow keeps (HeraldStatus, HeraldEndpointStatus). It
// adds no command, so a delivery's history is the same with it as without (test/observability).
// Bundled with the workflows (WORKFLOW_INTERCEPTOR_MODULES in src/worker.ts).
import { proxySinks, workflowInfo, type WorkflowInterceptors } from '@temporalio/workflow';
import type {
  AttemptRequest,
  DeliveryInput,
  DeliveryState,
  DeliveryStatus,
  SendResult,
} from '../shared/delivery-types.js';
import { SA_ENDPOINT_STATUS, SA_PRESET, SA_STATUS } from '../shared/search-attributes.js';
import { classifyAttempt, failedAttemptClass, type ClassifiedAttempt } from './attempt-outcome.js';
import { numberedMetrics, type DeliveryRef, type HeraldMetricsSinks } from './metrics-sinks.js';

const sinks = proxySinks<HeraldMetricsSinks>();

const DELIVERY_TYPES: Record<string, DeliveryRef['kind']> = {
  deliveryWorkflow: 'delivery',
  forwardWorkflow: 'forward',
};
const FINAL: readonly string[] = ['succeeded', 'failed', 'exhausted', 'dead'];

/** Metrics must never fail a workflow task: whatever goes wrong here is dropped. */
function watching(fn: () => void) {
  try {
    fn();
  } catch {
    // A metric lost, never a delivery.
  }
}

function readAttribute(key: typeof SA_STATUS): string | undefined {
  const value = workflowInfo().typedSearchAttributes.get(key);
  return typeof value === 'string' ? value : undefined;
}

export const interceptors = (): WorkflowInterceptors => {
  const type = workflowInfo().workflowType;
  if (type === 'endpointWorkflow') return endpointInterceptors();
  const kind = DELIVERY_TYPES[type];
  return kind ? deliveryInterceptors(kind) : {};
};

function deliveryInterceptors(kind: DeliveryRef['kind']): WorkflowInterceptors {
  const heraldMetrics = numberedMetrics(sinks.heraldMetrics);
  let ref: DeliveryRef | undefined;
  /**
   * Issue 16: a run that closes at its round's end writes HeraldStatus only for dead letters,
   * dead and failed, so its status is read from what it does: a send is `processing`, a timer
   * after it is `pending` again (a retry waits), and its result is the final status.
   */
  let closes = false;
  let observed: DeliveryStatus | undefined;
  const status = () => (closes ? observed : (readAttribute(SA_STATUS) as DeliveryStatus | undefined));
  // Read once the workflow runs: the info is not complete while interceptors are made.
  let lastStatus: DeliveryStatus | undefined;
  /** A failed attempt whose class the delivery's next status decides. */
  let failed: ClassifiedAttempt | undefined;

  const settle = () => {
    const now = status();
    if (ref && failed) {
      const outcome = failedAttemptClass(now === 'processing' ? undefined : now);
      if (outcome) {
        heraldMetrics.attempt(ref, outcome, undefined, failed.latencySeconds);
        failed = undefined;
      }
    }
    if (ref && now !== lastStatus && now && FINAL.includes(now)) heraldMetrics.deliveryEnded(ref, now);
    lastStatus = now;
  };

  async function watchSend(input: { activityType: string; args: unknown[] }, next: () => Promise<unknown>) {
    if (input.activityType !== 'sendAttempt' || !ref) return next();
    const req = input.args[0] as AttemptRequest;
    if (closes) observed = 'processing';
    let result: SendResult;
    try {
      result = (await next()) as SendResult;
    } catch (err) {
      heraldMetrics.attempt({ ...ref, preset: req.preset }, 'worker_error', undefined, undefined);
      throw err;
    }
    const known = ref;
    watching(() => {
      // No inline slot was free: not an attempt, the activity sends it.
      if (result.inlineDeclined) return;
      // A repeated first task: the attempt before it was lost with its worker (R-CRASH).
      if (result.inlineLost)
        return heraldMetrics.attempt({ ...known, preset: req.preset }, 'worker_error', undefined, undefined);
      const c = classifyAttempt(result);
      if (c.outcome === 'failed') failed = c;
      else heraldMetrics.attempt(known, c.outcome, c.reason, c.latencySeconds);
    });
    return result;
  }

  return {
    inbound: [
      {
        async execute(input, next) {
          const d = input.args[0] as DeliveryInput;
          ref = { kind, preset: d.policy.preset, tenant: d.tenantId, endpoint: d.endpointId };
          closes = d.closesAtRoundEnd === true;
          observed = readAttribute(SA_STATUS) as DeliveryStatus | undefined;
          lastStatus = status();
          // A run continued as new (issue 14.1) is the same delivery: started once; so is a
          // closed delivery started again by a dead-letter retry or replay (issue 16).
          if (!d.carried && !d.reopened) {
            heraldMetrics.deliveryStarted(ref);
            // Dead-lettered on arrival (hold_overflow): indexed final from the start.
            if (lastStatus && FINAL.includes(lastStatus)) heraldMetrics.deliveryEnded(ref, lastStatus);
          }
          const result = (await next(input)) as DeliveryState;
          watching(() => {
            if (closes) observed = result.status;
          });
          return result;
        },
      },
    ],
    outbound: [
      {
        scheduleActivity: (input, next) => watchSend(input, () => next(input)),
        // Issue 16: the first attempt, sent inside the first workflow task.
        scheduleLocalActivity: (input, next) => watchSend(input, () => next(input)),
        async startTimer(input, next) {
          // A wait after a send: the delivery is pending again (a run that closes at its end).
          if (closes && observed === 'processing') observed = 'pending';
          return next(input);
        },
      },
    ],
    internals: [
      {
        concludeActivation(input, next) {
          watching(settle);
          return next(input);
        },
      },
    ],
  };
}

function endpointInterceptors(): WorkflowInterceptors {
  const heraldMetrics = numberedMetrics(sinks.heraldMetrics);
  let last: string | undefined;
  let started = false;
  return {
    inbound: [
      {
        async execute(input, next) {
          watching(() => (last = readAttribute(SA_ENDPOINT_STATUS)));
          started = true;
          return next(input);
        },
      },
    ],
    internals: [
      {
        concludeActivation(input, next) {
          if (started)
            watching(() => {
              const now = readAttribute(SA_ENDPOINT_STATUS);
              if (now && last && now !== last)
                heraldMetrics.endpointTransition(
                  readAttribute(SA_PRESET) ?? 'unknown',
                  workflowInfo().workflowId,
                  last,
                  now,
                );
              last = now ?? last;
            });
          return next(input);
        },
      },
    ],
  };
}
