// The worker bundles this file: every workflow Herald registers is exported here.
export { deliveryWorkflow } from './delivery.js';
export { endpointWorkflow } from './endpoint.js';
export { tenantWorkflow } from './tenant.js';
export { eventWorkflow } from './event.js';
export { replayWindowWorkflow } from './replay-window.js';
