import { defineQuery } from '@temporalio/workflow';
import type { EventInput } from './event-types.js';

/**
 * The event exactly as first accepted. A repeated publish reads it to finish a fan-out
 * that a crashed API process may have left half done, with the first request's inputs.
 */
export const eventInputQuery = defineQuery<EventInput>('eventInput');
