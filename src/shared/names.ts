// The contract for other SDKs: workflow type names as registered on the worker.
export const DELIVERY_WORKFLOW = 'deliveryWorkflow';
export const ENDPOINT_WORKFLOW = 'endpointWorkflow';
export const TENANT_WORKFLOW = 'tenantWorkflow';
export const EVENT_WORKFLOW = 'eventWorkflow';
