import { describe, expect, it } from 'vitest';
import { createEndpointSchema, patchEndpointSchema, publishSchema } from '../../../src/api/schemas.js';
import { destinationInputSchema } from '../../../src/api/routes/sources.routes.js';
import {
  INBOUND_FORWARD_POLICY,
  PRESETS,
  PRESET_NAMES,
  PolicyError,
  deliveryPolicySchema,
  policyOverridesSchema,
  resolvePolicy,
} from '../../../src/policy/policy.js';
import { copyPolicy } from '../../../src/policy/apply-overrides.js';
import { baseDelaySeconds } from '../../../src/policy/schedule.js';

const BURST = { maxAttempts: 20, retryDelays: [0] };

describe('13.6 R-RH-CUSTOM: a retry delay is at least 1 s, so 20 attempts cannot become a burst', () => {
  it('13.6 R-RH-CUSTOM: a 0 s delay is refused with a message that says the minimum; 1 s is accepted', () => {
    const r = policyOverridesSchema.safeParse(BURST);
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]).toMatchObject({ path: ['retryDelays', 0] });
    expect(r.error!.issues[0]!.message).toMatch(/at least 1 s/);
    expect(policyOverridesSchema.safeParse({ ...BURST, retryDelays: [60, 0] }).success).toBe(false);
    expect(policyOverridesSchema.safeParse({ maxAttempts: 20, retryDelays: [1] }).success).toBe(true);
  });

  it('13.6 R-RH-CUSTOM: every place a tenant sets a policy refuses it: endpoint create and patch, ad-hoc targets, inbound destinations', () => {
    const url = 'https://example.com/x';
    const cases = [
      [createEndpointSchema, { url, policy: BURST }, ['policy', 'retryDelays', 0]],
      [patchEndpointSchema, { policy: BURST }, ['policy', 'retryDelays', 0]],
      [
        publishSchema,
        {
          type: 'x',
          payload: {},
          targets: [{ url, secrets: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'], policy: BURST }],
        },
        ['targets', 0, 'policy', 'retryDelays', 0],
      ],
      [destinationInputSchema, { url, policy: BURST }, ['policy', 'retryDelays', 0]],
    ] as const;
    for (const [schema, body, path] of cases) {
      const r = schema.safeParse(body);
      expect(r.success, JSON.stringify(body)).toBe(false);
      expect(r.error!.issues.map((i) => i.path)).toContainEqual(path);
    }
  });

  it('13.6 R-RH-CUSTOM: a 0 s step that reaches the resolver anyway (saved before the minimum, or published through Temporal) waits 1 s', () => {
    // Endpoints saved before the minimum keep working: their 0 s steps become 1 s.
    const p = resolvePolicy('railhook', BURST);
    expect(p.retryDelaysSeconds).toEqual([1]);
    for (let k = 1; k < p.maxAttempts; k++) expect(baseDelaySeconds(p, k)).toBeGreaterThanOrEqual(1);
    expect(() => resolvePolicy('railhook', { retryDelays: [-1] })).toThrow(PolicyError);
  });

  it('13.6 R-DELAY: no preset schedule has a step under 1 s, and a full policy with a 0 s step is invalid', () => {
    for (const name of PRESET_NAMES) {
      expect(Math.min(...PRESETS[name].retryDelaysSeconds), name).toBeGreaterThanOrEqual(1);
      expect(deliveryPolicySchema.safeParse(PRESETS[name]).success, name).toBe(true);
    }
    expect(Math.min(...INBOUND_FORWARD_POLICY.retryDelaysSeconds)).toBeGreaterThanOrEqual(1);
    const zero = copyPolicy(PRESETS.standard);
    zero.retryDelaysSeconds = [0, ...zero.retryDelaysSeconds.slice(1)];
    expect(deliveryPolicySchema.safeParse(zero).success).toBe(false);
  });
});
