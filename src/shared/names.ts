// The contract for other SDKs: workflow type names as registered on the worker.
export const DELIVERY_WORKFLOW = 'deliveryWorkflow';
export const ENDPOINT_WORKFLOW = 'endpointWorkflow';
export const TENANT_WORKFLOW = 'tenantWorkflow';
export const EVENT_WORKFLOW = 'eventWorkflow';
/** R-BIRD-REPLAY: the background job behind a window replay (ids `rw_<random>`). */
export const REPLAY_WINDOW_WORKFLOW = 'replayWindowWorkflow';
