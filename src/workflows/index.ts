// The worker bundles this file: every workflow Herald registers is exported here.
export { deliveryWorkflow } from './delivery.js';
export { endpointWorkflow } from './endpoint.js';
export { tenantWorkflow } from './tenant.js';
export { eventWorkflow } from './event.js';
export { replayWindowWorkflow } from './replay-window.js';
export { sourceWorkflow } from './source.js';
// R-RH-INBOUND: a forward is the delivery workflow itself under its own type name, so
// visibility tells forwards from outbound deliveries (their lists, dead letters, replay).
export { deliveryWorkflow as forwardWorkflow } from './delivery.js';
export { ingestBatchWorkflow } from './ingest-batch.js';
