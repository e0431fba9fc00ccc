import { describe, expect, it } from 'vitest';
import { NOTHING, and, eq, isIn, literal, pendingDeliveries } from '../../../src/store/visibility.js';

describe('store/visibility: the one escaping rule for query literals', () => {
  it('issue 15: quotes and backslashes are escaped, so a value can never end its literal', () => {
    expect(literal("it's")).toBe("'it\\'s'");
    expect(literal('a\\b')).toBe("'a\\\\b'");
    // A trailing backslash would otherwise escape the closing quote.
    expect(literal('a\\')).toBe("'a\\\\'");
    expect(literal("\\'")).toBe("'\\\\\\''");
    expect(literal("x' OR HeraldTenant != 'y")).toBe("'x\\' OR HeraldTenant != \\'y'");
  });

  it('issue 15: unicode goes through unchanged (ids are never stripped of characters)', () => {
    expect(literal('tenant-ü-日本-🎉')).toBe("'tenant-ü-日本-🎉'");
  });

  it('issue 15: an empty IN list matches nothing rather than everything; unset filters drop out', () => {
    expect(isIn('HeraldPreset', [])).toBe(NOTHING);
    expect(and(eq('HeraldTenant', 't'), undefined, false, '')).toBe("HeraldTenant = 't'");
  });

  it('issue 15: "pending deliveries of X" is one query, per endpoint or per tenant', () => {
    expect(pendingDeliveries({ endpointId: "ep'1" })).toBe(
      "WorkflowType = 'deliveryWorkflow' AND HeraldEndpoint = 'ep\\'1' AND HeraldStatus IN ('pending', 'processing') AND ExecutionStatus = 'Running'",
    );
    expect(pendingDeliveries({ tenantId: 't' })).toContain("HeraldTenant = 't'");
  });
});
