// Signals, queries and updates of Herald's workflows, defined once so the API and the
// typed client can address a workflow without importing its code.
import { defineQuery } from '@temporalio/workflow';
import type { DeliveryState } from './delivery-types.js';

export const deliveryStateQuery = defineQuery<DeliveryState>('deliveryState');
