// One import point for the endpoint workflow and the API. Everything here is pure
// (no clock, no randomness, no Node or Temporal import): it runs in the workflow sandbox.
export * from './types.js';
export { PAUSE_RECHECK_MS } from './common.js';
export * from './engine.js';
export * from './reporting.js';
export { BIRD_PAUSE_AFTER_MS } from './bird.js';
export {
  DT_DRAIN_RECHECK_MS,
  DT_HOLD_LIMIT,
  DT_HOLD_MS,
  DT_HOLD_OVERFLOW_CODE,
  DT_SUSPEND_AFTER_FAILURES,
} from './dongtien.js';
export {
  RH_CIRCUIT_OPEN_MS,
  RH_CIRCUIT_THRESHOLD,
  RH_HALF_OPEN_RECHECK_MS,
  RH_PROBE_LEASE_MS,
  circuitPhase,
  type CircuitPhase,
} from './railhook.js';
