import { describe, it, expect } from 'vitest';
import {
  INBOUND_FORWARD_POLICY,
  PRESETS,
  PRESET_NAMES,
  PolicyError,
  applyOperatorSettings,
  assertScheduleFitsLifetime,
  deliveryPolicySchema,
  policyOverridesSchema,
  resolvePolicy,
  worstCaseScheduleSeconds,
  type DeliveryPolicy,
  type PresetName,
} from '../../../src/policy/policy.js';

const M = 60;
const H = 3600;
const SHARED = [5, 5 * M, 30 * M, 2 * H, 5 * H, 10 * H, 10 * H];

function policyError(fn: () => unknown): PolicyError {
  try {
    fn();
  } catch (err) {
    if (err instanceof PolicyError) return err;
    throw err;
  }
  throw new Error('expected a PolicyError');
}

const expected: Record<
  PresetName,
  Pick<
    DeliveryPolicy,
    | 'maxAttempts'
    | 'retryDelaysSeconds'
    | 'jitter'
    | 'timeoutSeconds'
    | 'lifetimeSeconds'
    | 'privateAddress'
    | 'invalidUrl'
    | 'goneAction'
    | 'leaseSeconds'
    | 'deliveryIdHeader'
    | 'minDelayAfter429OrTimeoutSeconds'
    | 'retryAfter'
  >
> = {
  standard: {
    maxAttempts: 8,
    retryDelaysSeconds: SHARED,
    jitter: { min: 0.9, max: 1.1, fromAttempt: 2 },
    timeoutSeconds: 15,
    lifetimeSeconds: 96 * H,
    privateAddress: 'retry',
    invalidUrl: 'retry',
    goneAction: 'exhaust_and_disable',
    leaseSeconds: 20,
    deliveryIdHeader: 'Webhook-Delivery-Id',
    minDelayAfter429OrTimeoutSeconds: 0,
    retryAfter: { statuses: '429,503', rule: 'max', capSeconds: H, minSeconds: 0, ignore: false },
  },
  smengo: {
    maxAttempts: 8,
    retryDelaysSeconds: SHARED,
    jitter: { min: 0.9, max: 1.1, fromAttempt: 2 },
    timeoutSeconds: 15,
    lifetimeSeconds: null,
    privateAddress: 'retry',
    invalidUrl: 'retry',
    goneAction: 'dead_and_disable',
    leaseSeconds: 20,
    deliveryIdHeader: 'Smengo-Delivery-Id',
    minDelayAfter429OrTimeoutSeconds: 0,
    retryAfter: { statuses: '429,5xx', rule: 'max', capSeconds: H, minSeconds: 0, ignore: false },
  },
  railhook: {
    maxAttempts: 7,
    retryDelaysSeconds: [M, 5 * M, 15 * M, H, 6 * H, 24 * H],
    jitter: { min: 0.5, max: 1.5, fromAttempt: 2 },
    timeoutSeconds: 30,
    lifetimeSeconds: 96 * H,
    privateAddress: 'fail',
    invalidUrl: 'fail',
    goneAction: 'follow_list',
    leaseSeconds: 300,
    deliveryIdHeader: 'Webhook-Delivery-Id',
    minDelayAfter429OrTimeoutSeconds: 0,
    retryAfter: { statuses: '429,503', rule: 'max', capSeconds: 21600, minSeconds: 0, ignore: false },
  },
  bird: {
    maxAttempts: 8,
    retryDelaysSeconds: SHARED,
    jitter: { min: 0.8, max: 1.2, fromAttempt: 2 },
    timeoutSeconds: 15,
    lifetimeSeconds: null,
    privateAddress: 'retry',
    invalidUrl: 'retry',
    goneAction: 'follow_list',
    leaseSeconds: 20,
    deliveryIdHeader: 'Webhook-Delivery-Id',
    minDelayAfter429OrTimeoutSeconds: 60,
    retryAfter: { statuses: '429,503', rule: 'max', capSeconds: 6 * H, minSeconds: 0, ignore: false },
  },
  dongtien: {
    maxAttempts: 8,
    retryDelaysSeconds: SHARED,
    jitter: { min: 0.9, max: 1.1, fromAttempt: 2 },
    timeoutSeconds: 10,
    lifetimeSeconds: null,
    privateAddress: 'retry',
    invalidUrl: 'retry',
    goneAction: 'exhaust_and_disable',
    leaseSeconds: 15,
    deliveryIdHeader: 'Webhook-Delivery-Id',
    minDelayAfter429OrTimeoutSeconds: 0,
    retryAfter: {
      statuses: '1xx,3xx,4xx,5xx',
      rule: 'replace',
      capSeconds: 24 * H,
      minSeconds: 1,
      ignore: false,
    },
  },
};

describe('R-PRESET: SPEC §3 columns', () => {
  it('R-PRESET: PRESET_NAMES lists exactly the five presets', () => {
    expect([...PRESET_NAMES].sort()).toEqual(['bird', 'dongtien', 'railhook', 'smengo', 'standard']);
    expect(Object.keys(PRESETS).sort()).toEqual([...PRESET_NAMES].sort());
  });

  it.each(PRESET_NAMES)('R-PRESET: %s matches its §3 column', (name) => {
    const p = PRESETS[name];
    expect(p.preset).toBe(name);
    expect(p.direction).toBe('outbound');
    expect(p).toMatchObject(expected[name]);
  });

  it.each(PRESET_NAMES)('R-PRESET: %s passes deliveryPolicySchema', (name) => {
    const r = deliveryPolicySchema.safeParse(PRESETS[name]);
    expect(r.success, r.success ? '' : JSON.stringify(r.error.issues)).toBe(true);
  });

  it('R-PRESET: total nominal schedules match the seeds (~27.5h shared, ~31h21m railhook)', () => {
    const sum = (a: number[]) => a.reduce((x, y) => x + y, 0);
    expect(sum(PRESETS.bird.retryDelaysSeconds)).toBe(27 * H + 35 * M + 5);
    expect(sum(PRESETS.railhook.retryDelaysSeconds)).toBe(31 * H + 21 * M);
    expect(sum(INBOUND_FORWARD_POLICY.retryDelaysSeconds)).toBe(H + 21 * M);
  });

  it('R-CRASH: every lease outlasts its attempt timeout; railhook uses the 300 s claim timeout', () => {
    for (const name of PRESET_NAMES)
      expect(PRESETS[name].leaseSeconds).toBeGreaterThan(PRESETS[name].timeoutSeconds);
    expect(PRESETS.railhook.leaseSeconds).toBe(300);
  });

  it('R-PRESET: presets are frozen so no caller can change them for everyone', () => {
    const p = PRESETS.standard;
    expect(() => {
      (p as { maxAttempts: number }).maxAttempts = 99;
    }).toThrow(TypeError);
    expect(() => p.retryDelaysSeconds.push(1)).toThrow(TypeError);
    expect(PRESETS.standard.maxAttempts).toBe(8);
  });
});

describe('R-RH-INBOUND forward policy', () => {
  it('R-RH-INBOUND: 5 attempts, 1m/5m/15m/1h, 24h lifetime, railhook rules otherwise', () => {
    expect(INBOUND_FORWARD_POLICY).toMatchObject({
      preset: 'railhook',
      direction: 'inbound',
      maxAttempts: 5,
      retryDelaysSeconds: [M, 5 * M, 15 * M, H],
      lifetimeSeconds: 24 * H,
      jitter: { min: 0.5, max: 1.5, fromAttempt: 2 },
      timeoutSeconds: 30,
      retryableStatuses: '408,429,500-599',
    });
    expect(deliveryPolicySchema.safeParse(INBOUND_FORWARD_POLICY).success).toBe(true);
  });

  it('R-RH-INBOUND: resolvePolicy(railhook, inbound) is the forward policy', () => {
    expect(resolvePolicy('railhook', undefined, 'inbound')).toEqual(INBOUND_FORWARD_POLICY);
  });

  it('R-RH-INBOUND: other presets keep their outbound schedule for inbound', () => {
    const p = resolvePolicy('smengo', undefined, 'inbound');
    expect(p.direction).toBe('inbound');
    expect(p.maxAttempts).toBe(8);
    expect(p.retryDelaysSeconds).toEqual(SHARED);
  });
});

describe('R-RH-CUSTOM resolvePolicy', () => {
  it('R-RH-CUSTOM: without overrides returns an equal but independent copy', () => {
    const p = resolvePolicy('railhook');
    expect(p).toEqual(PRESETS.railhook);
    p.retryDelaysSeconds.push(1);
    p.jitter.max = 9;
    p.retryAfter.capSeconds = 1;
    expect(PRESETS.railhook.retryDelaysSeconds).toHaveLength(6);
    expect(PRESETS.railhook.jitter.max).toBe(1.5);
    expect(PRESETS.railhook.retryAfter.capSeconds).toBe(21600);
  });

  it('R-RH-CUSTOM: maxAttempts, retryDelays, timeoutSeconds and retryableStatuses are applied', () => {
    const p = resolvePolicy('railhook', {
      maxAttempts: 12,
      retryDelays: [10, 20],
      timeoutSeconds: 60,
      retryableStatuses: ' 5xx,!501 ',
    });
    expect(p.maxAttempts).toBe(12);
    expect(p.retryDelaysSeconds).toEqual([10, 20]);
    expect(p.timeoutSeconds).toBe(60);
    expect(p.retryableStatuses).toBe('5xx,!501');
    expect(p.leaseSeconds).toBe(300);
    expect(PRESETS.railhook.maxAttempts).toBe(7);
  });

  it('R-CRASH: a timeout override moves the lease of timeout-derived presets', () => {
    expect(resolvePolicy('standard', { timeoutSeconds: 60 }).leaseSeconds).toBe(65);
    expect(resolvePolicy('dongtien', { timeoutSeconds: 1 }).leaseSeconds).toBe(6);
  });

  it('R-RH-CUSTOM: the range limits hold at both ends', () => {
    expect(resolvePolicy('railhook', { maxAttempts: 1 }).maxAttempts).toBe(1);
    expect(resolvePolicy('railhook', { maxAttempts: 20 }).maxAttempts).toBe(20);
    expect(resolvePolicy('railhook', { timeoutSeconds: 1 }).timeoutSeconds).toBe(1);
    expect(resolvePolicy('railhook', { retryDelays: [1] }).retryDelaysSeconds).toEqual([1]);
    expect(
      resolvePolicy('railhook', { retryDelays: Array.from({ length: 20 }, () => 1) }).retryDelaysSeconds,
    ).toHaveLength(20);
  });

  it.each([
    ['maxAttempts 0', { maxAttempts: 0 }],
    ['maxAttempts 21', { maxAttempts: 21 }],
    ['maxAttempts 1.5', { maxAttempts: 1.5 }],
    ['timeoutSeconds 0', { timeoutSeconds: 0 }],
    ['timeoutSeconds 61', { timeoutSeconds: 61 }],
    ['empty retryDelays', { retryDelays: [] }],
    ['negative delay', { retryDelays: [60, -1] }],
    ['fractional delay', { retryDelays: [1.5] }],
    ['delay above 7 days', { retryDelays: [7 * 24 * 3600 + 1] }],
    ['21 delays', { retryDelays: Array.from({ length: 21 }, () => 1) }],
    ['unknown key', { maxAttempts: 3, retryDelay: [1] }],
  ])('R-RH-CUSTOM: %s is rejected with invalid_policy_overrides', (_label, overrides) => {
    const err = policyError(() => resolvePolicy('railhook', overrides as never));
    expect(err.code).toBe('invalid_policy_overrides');
    expect(err.message.length).toBeGreaterThan(0);
  });

  it('R-RH-GRAMMAR: an unreadable retryableStatuses override is rejected naming the term', () => {
    const err = policyError(() => resolvePolicy('railhook', { retryableStatuses: '5xx,!5x1' }));
    expect(err.code).toBe('invalid_retryable_statuses');
    expect(err.message).toContain('"!5x1"');
  });

  it('R-RH-GRAMMAR: the zod issue for a bad list names the term', () => {
    const r = policyOverridesSchema.safeParse({ retryableStatuses: '408,foo' });
    expect(r.success).toBe(false);
    if (!r.success) {
      expect(r.error.issues[0]?.path).toEqual(['retryableStatuses']);
      expect(r.error.issues[0]?.message).toContain('"foo"');
    }
    expect(policyOverridesSchema.safeParse({ retryableStatuses: '408,429' }).success).toBe(true);
  });

  it('R-RH-CUSTOM: an unknown preset is a PolicyError', () => {
    expect(policyError(() => resolvePolicy('svix' as PresetName)).code).toBe('unknown_preset');
  });
});

describe('R-PRESET: deliveryPolicySchema rejects inconsistent policies', () => {
  const base = (): DeliveryPolicy => resolvePolicy('standard');
  it.each<[string, (p: DeliveryPolicy) => void]>([
    ['jitter min above max', (p) => (p.jitter = { min: 1.2, max: 1.1, fromAttempt: 2 })],
    ['21 attempts', (p) => (p.maxAttempts = 21)],
    ['0 attempts', (p) => (p.maxAttempts = 0)],
    ['timeout 0', (p) => (p.timeoutSeconds = 0)],
    ['timeout 61', (p) => (p.timeoutSeconds = 61)],
    ['negative delay', (p) => (p.retryDelaysSeconds = [5, -5])],
    ['no delays with retries', (p) => (p.retryDelaysSeconds = [])],
    ['lease not above timeout', (p) => (p.leaseSeconds = p.timeoutSeconds)],
    ['bad header name', (p) => (p.deliveryIdHeader = 'Delivery Id')],
    ['bad status list', (p) => (p.retryableStatuses = '5xx,teapot')],
    ['bad retry-after list', (p) => (p.retryAfter.statuses = '')],
    ['retry-after min above cap', (p) => (p.retryAfter = { ...p.retryAfter, minSeconds: 10, capSeconds: 5 })],
    ['zero lifetime', (p) => (p.lifetimeSeconds = 0)],
  ])('R-PRESET: %s', (_label, mutate) => {
    const p = base();
    mutate(p);
    expect(deliveryPolicySchema.safeParse(p).success).toBe(false);
  });

  it('R-PRESET: a single-attempt policy needs no delays', () => {
    const p = base();
    p.maxAttempts = 1;
    p.retryDelaysSeconds = [];
    expect(deliveryPolicySchema.safeParse(p).success).toBe(true);
  });
});

describe('R-RH-LIFETIME start-up check', () => {
  it('R-RH-LIFETIME: worst case = delays at max jitter + attempts x timeout', () => {
    // (60+300+900+3600+21600+86400) * 1.5 + 7 * 30
    expect(worstCaseScheduleSeconds(PRESETS.railhook)).toBeCloseTo(169500, 6);
    // (60+300+900+3600) * 1.5 + 5 * 30
    expect(worstCaseScheduleSeconds(INBOUND_FORWARD_POLICY)).toBeCloseTo(7440, 6);
    // 99305 * 1.1 + 8 * 15
    expect(worstCaseScheduleSeconds(PRESETS.standard)).toBeCloseTo(109355.5, 6);
  });

  it('R-RH-LIFETIME: the default outbound and inbound schedules fit their lifetimes', () => {
    expect(() => assertScheduleFitsLifetime(PRESETS.railhook)).not.toThrow();
    expect(() => assertScheduleFitsLifetime(INBOUND_FORWARD_POLICY)).not.toThrow();
    expect(() => assertScheduleFitsLifetime(PRESETS.standard)).not.toThrow();
  });

  it('R-RH-LIFETIME: a custom schedule that cannot fit 96h is refused', () => {
    const p = resolvePolicy('railhook', { maxAttempts: 20, retryDelays: [24 * H] });
    const err = policyError(() => assertScheduleFitsLifetime(p));
    expect(err.code).toBe('schedule_exceeds_lifetime');
    expect(err.message).toContain('96.00h');
  });

  it('R-RH-LIFETIME: an inbound schedule that cannot fit 24h is refused', () => {
    // 4 waits of 6h at up to 1.5x = 36h.
    const p = resolvePolicy('railhook', { retryDelays: [6 * H] }, 'inbound');
    expect(policyError(() => assertScheduleFitsLifetime(p)).code).toBe('schedule_exceeds_lifetime');
  });

  it('R-RH-LIFETIME: the boundary is inclusive (worst case equal to the lifetime fits)', () => {
    const p = resolvePolicy('railhook', { maxAttempts: 2, retryDelays: [1000] });
    p.lifetimeSeconds = 1000 * 1.5 + 2 * 30;
    expect(() => assertScheduleFitsLifetime(p)).not.toThrow();
    p.lifetimeSeconds -= 1;
    expect(() => assertScheduleFitsLifetime(p)).toThrow(PolicyError);
  });

  it('R-RH-LIFETIME: presets without a lifetime never refuse', () => {
    const p = resolvePolicy('smengo', { maxAttempts: 20, retryDelays: [7 * 24 * H] });
    expect(() => assertScheduleFitsLifetime(p)).not.toThrow();
  });

  it("R-RH-LIFETIME: bird's 60 s floor after 429/timeout counts toward the worst case", () => {
    const p = resolvePolicy('bird', { maxAttempts: 3, retryDelays: [5] });
    expect(worstCaseScheduleSeconds(p)).toBe(2 * 60 + 3 * 15);
  });

  it('R-RH-LIFETIME: unjittered waits count at face value', () => {
    const p = resolvePolicy('railhook', { maxAttempts: 3, retryDelays: [100, 200], timeoutSeconds: 1 });
    p.jitter.fromAttempt = 3;
    expect(worstCaseScheduleSeconds(p)).toBe(100 + 200 * 1.5 + 3);
  });
});

describe('R-DELAY operator settings', () => {
  it('R-DELAY: WEBHOOK_RETRY_AFTER_MAX_SECONDS=0 means ignore the header', () => {
    const p = applyOperatorSettings(PRESETS.railhook, { retryAfterMaxSeconds: 0 });
    expect(p.retryAfter.ignore).toBe(true);
    expect(PRESETS.railhook.retryAfter.ignore).toBe(false);
  });

  it('R-DELAY: a non-zero WEBHOOK_RETRY_AFTER_MAX_SECONDS becomes the cap', () => {
    const p = applyOperatorSettings(PRESETS.railhook, { retryAfterMaxSeconds: 7200 });
    expect(p.retryAfter).toMatchObject({ capSeconds: 7200, ignore: false });
  });

  it('R-RH-LIFETIME: a shorter DELIVERY_ESCALATION_HARD_CAP_HOURS makes the start-up check fail', () => {
    const p = applyOperatorSettings(PRESETS.railhook, { lifetimeHours: 24 });
    expect(p.lifetimeSeconds).toBe(24 * H);
    expect(policyError(() => assertScheduleFitsLifetime(p)).code).toBe('schedule_exceeds_lifetime');
  });

  it('R-CRASH: a claim timeout not above the attempt timeout is refused', () => {
    expect(applyOperatorSettings(PRESETS.railhook, { claimTimeoutSeconds: 120 }).leaseSeconds).toBe(120);
    expect(policyError(() => applyOperatorSettings(PRESETS.railhook, { claimTimeoutSeconds: 30 })).code).toBe(
      'invalid_operator_settings',
    );
  });
});
