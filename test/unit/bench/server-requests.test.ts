import { describe, expect, it } from 'vitest';
import { parseFrontendRequests } from '../../../bench/server-requests.js';

const exposition = `
# TYPE service_requests counter
service_requests{namespace="default",operation="DescribeWorkflowExecution",service_name="frontend"} 2707
service_requests{namespace="default",operation="DescribeWorkflowExecution",service_name="history"} 2707
service_requests{namespace="default",operation="QueryWorkflow",service_name="frontend"} 33
service_requests{namespace="other",operation="QueryWorkflow",service_name="frontend"} 5
service_requests_total{namespace="default",operation="StartWorkflowExecution",service_name="frontend"} 12
action{action_type="grpc_QueryWorkflow",namespace="default",operation="QueryWorkflow",service_name="frontend"} 33
`;

describe('issue 16: requests the Temporal frontend served, by operation', () => {
  it("counts one namespace's frontend requests only (not history's or matching's copies, not actions)", () => {
    expect(parseFrontendRequests(exposition, 'default')).toEqual({
      DescribeWorkflowExecution: 2707,
      QueryWorkflow: 33,
      StartWorkflowExecution: 12,
    });
  });
});
