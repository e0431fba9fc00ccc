// Issue 20: delivery and endpoint metrics, seen from inside the workflows without changing
// what they do. The interceptor only watches: the send activity's input and result, and
// the status search attribute the workflow keeps (HeraldStatus, HeraldEndpointStatus). It
// adds no command, so a delivery's history is the same with it as without (test/observability).
// Bundled with the workflows (WORKFLOW_INTERCEPTOR_MODULES in src/worker.ts).
import { proxySinks, workflowInfo, type WorkflowInterceptors } from '@temporalio/workflow';
import type { AttemptRequest, DeliveryInput, DeliveryStatus, SendResult } from '../shared/delivery-types.js';
import { SA_ENDPOINT_STATUS, SA_PRESET, SA_STATUS } from '../shared/search-attributes.js';
import { classifyAttempt, failedAttemptClass, type ClassifiedAttempt } from './attempt-outcome.js';
import type { DeliveryRef, HeraldMetricsSinks } from './metrics-sinks.js';

const { heraldMetrics } = proxySinks<HeraldMetricsSinks>();

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
  let ref: DeliveryRef | undefined;
  const status = () => readAttribute(SA_STATUS) as DeliveryStatus | undefined;
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

  return {
    inbound: [
      {
        async execute(input, next) {
          const d = input.args[0] as DeliveryInput;
          ref = { kind, preset: d.policy.preset, tenant: d.tenantId, endpoint: d.endpointId };
          lastStatus = status();
          // A run continued as new (issue 14.1) is the same delivery: started once.
          if (!d.carried) {
            heraldMetrics.deliveryStarted(ref);
            // Dead-lettered on arrival (hold_overflow): indexed final from the start.
            if (lastStatus && FINAL.includes(lastStatus)) heraldMetrics.deliveryEnded(ref, lastStatus);
          }
          return next(input);
        },
      },
    ],
    outbound: [
      {
        async scheduleActivity(input, next) {
          if (input.activityType !== 'sendAttempt' || !ref) return next(input);
          const req = input.args[0] as AttemptRequest;
          let result: SendResult;
          try {
            result = (await next(input)) as SendResult;
          } catch (err) {
            heraldMetrics.attempt({ ...ref, preset: req.preset }, 'worker_error', undefined, undefined);
            throw err;
          }
          const known = ref;
          watching(() => {
            const c = classifyAttempt(result);
            if (c.outcome === 'failed') failed = c;
            else heraldMetrics.attempt(known, c.outcome, c.reason, c.latencySeconds);
          });
          return result;
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
