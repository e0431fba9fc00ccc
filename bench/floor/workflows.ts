import { proxyActivities, upsertSearchAttributes } from '@temporalio/workflow';
import { SA_STATUS } from '../../src/shared/search-attributes.js';
import type { FloorActivities } from './activities.js';

const { noop } = proxyActivities<FloorActivities>({ startToCloseTimeout: '10s' });

/** The least a delivery can be: started, one activity, done. */
export async function oneActivity(): Promise<void> {
  await noop();
}

/** The same with the two status upserts a delivery makes (processing, then its outcome). */
export async function oneActivityIndexed(): Promise<void> {
  upsertSearchAttributes([{ key: SA_STATUS, value: 'processing' }]);
  await noop();
  upsertSearchAttributes([{ key: SA_STATUS, value: 'succeeded' }]);
}

/** A workflow that starts and ends in its first task, like an event's record. */
export async function empty(): Promise<void> {}
