/**
 * Issue 17: the bounds of the flow options. Permits are granted by the endpoint workflow
 * through updates (about 100 a second per endpoint on the dev server, BENCHMARKS.md), so a
 * rate above MAX_PER_SECOND cannot be served that way and is refused when saved.
 */
export const MAX_PER_SECOND = 50;
export const MIN_PER_SECOND = 0.01;
export const MAX_BURST = 1_000;
export const MAX_IN_FLIGHT = 1_000;
/** The stable problem code of a bad flow option. */
export const INVALID_FLOW_OPTION = 'invalid_flow_option';
