import { WorkflowNotFoundError } from '@temporalio/client';

/**
 * A read that answers `undefined` only when the workflow does not exist. Anything else (an
 * unreachable or slow Temporal, a busy worker behind a query) is thrown on, so the API
 * answers 503 `temporal_unavailable`: an outage must never read as "no such thing".
 */
export async function unlessNotFound<T>(read: Promise<T>): Promise<T | undefined> {
  try {
    return await read;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return undefined;
    throw err;
  }
}
