// The contract for other SDKs: workflow type names as registered on the worker.
export const DELIVERY_WORKFLOW = 'deliveryWorkflow';
export const ENDPOINT_WORKFLOW = 'endpointWorkflow';
export const TENANT_WORKFLOW = 'tenantWorkflow';
export const EVENT_WORKFLOW = 'eventWorkflow';
/** R-BIRD-REPLAY: the background job behind a window replay (ids `rw_<random>`). */
export const REPLAY_WINDOW_WORKFLOW = 'replayWindowWorkflow';
/** R-RH-INBOUND: an inbound source's configuration (id `src_<random>`). */
export const SOURCE_WORKFLOW = 'sourceWorkflow';
/** R-RH-INBOUND: one received request to one destination; runs deliveryWorkflow's code (ids `fwd_<random>`). */
export const FORWARD_WORKFLOW = 'forwardWorkflow';
/** R-RH-INBOUND: requests acknowledged together, whose forwards it starts (ids `ib_<random>`). */
export const INGEST_BATCH_WORKFLOW = 'ingestBatchWorkflow';
