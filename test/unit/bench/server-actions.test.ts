import { describe, expect, it } from 'vitest';
import { countsBetween } from '../../../bench/prom-text.js';
import { billableActions, parseActionCounter } from '../../../bench/server-actions.js';

const exposition = (n: { start: number; query: number; marker: number; batch: number; other?: number }) => `
# HELP action action counter
# TYPE action counter
action{action_type="grpc_StartWorkflowExecution",namespace="default",operation="StartWorkflowExecution",service_name="frontend"} ${n.start}
action{action_type="grpc_QueryWorkflow",namespace="default",operation="QueryWorkflow",service_name="frontend"} ${n.query}
action{action_type="command_RecordMarker",namespace="default",operation="RespondWorkflowTaskCompleted",service_name="frontend"} ${n.marker}
action{action_type="command_BatchMarkers",namespace="default",operation="RespondWorkflowTaskCompleted",service_name="frontend"} ${n.batch}
action{action_type="grpc_StartWorkflowExecution",namespace="other",operation="StartWorkflowExecution",service_name="frontend"} ${n.other ?? 0}
service_requests{namespace="default",operation="StartWorkflowExecution",service_name="frontend"} 999
`;

describe('issue 16 (8): billable actions as the Temporal server counts them', () => {
  it('reads the `action` counter of one namespace by action type, and nothing else', () => {
    expect(
      parseActionCounter(exposition({ start: 4, query: 2, marker: 3, batch: 2, other: 7 }), 'default'),
    ).toEqual({
      grpc_StartWorkflowExecution: 4,
      grpc_QueryWorkflow: 2,
      command_RecordMarker: 3,
      command_BatchMarkers: 2,
    });
  });

  it('counts what happened between two readings; markers are billed by the batch, queries are billed', () => {
    const before = parseActionCounter(exposition({ start: 4, query: 2, marker: 3, batch: 2 }), 'default');
    const after = parseActionCounter(exposition({ start: 10, query: 5, marker: 9, batch: 5 }), 'default');
    const delta = countsBetween(before, after);
    expect(delta).toEqual({
      grpc_StartWorkflowExecution: 6,
      grpc_QueryWorkflow: 3,
      command_RecordMarker: 6,
      command_BatchMarkers: 3,
    });
    expect(billableActions(delta)).toBe(12);
  });

  it('a counter first seen after the first reading counts from zero', () => {
    expect(countsBetween({}, { grpc_SignalWorkflowExecution: 2 })).toEqual({
      grpc_SignalWorkflowExecution: 2,
    });
  });
});
