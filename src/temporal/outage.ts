import { NamespaceNotFoundError, ServiceError, isGrpcServiceError } from '@temporalio/client';

/** gRPC codes of a Temporal that did not answer, or not yet: the same request may succeed later. */
const OUTAGE_CODES: ReadonlySet<number> = new Set([
  1, // CANCELLED
  2, // UNKNOWN
  4, // DEADLINE_EXCEEDED
  8, // RESOURCE_EXHAUSTED
  10, // ABORTED
  13, // INTERNAL
  14, // UNAVAILABLE
]);

/**
 * Whether an error from Temporal means it is down or busy (answered 503, "retry"), as
 * opposed to a request it refused (INVALID_ARGUMENT and the like), which a retry would only
 * repeat for ever. An error with no gRPC code is a connection that never answered.
 */
export function isTemporalOutage(err: unknown): boolean {
  if (err instanceof NamespaceNotFoundError) return true;
  const cause = err instanceof ServiceError && isGrpcServiceError(err.cause) ? err.cause : err;
  if (isGrpcServiceError(cause)) return OUTAGE_CODES.has(cause.code);
  return err instanceof ServiceError;
}
