import { describe, it, expect } from 'vitest';
import {
  RH_CIRCUIT_OPEN_MS,
  RH_CIRCUIT_THRESHOLD,
  acceptsNewEvents,
  applyHealth,
  circuitPhase,
  foldHealth,
  initialHealth,
  sendDecision,
  type HealthInput,
  type HealthState,
} from '../../../src/health/index.js';

const T0 = Date.UTC(2025, 8, 1, 0, 0, 0);
const SEC = 1000;
const MIN = 60 * SEC;
const HOUR = 60 * MIN;

const failed = (at: number, deliveryId = 'd1', code = 'http_503'): HealthInput => ({
  kind: 'attempt_failed',
  at,
  code,
  deliveryId,
});
const ok = (at: number, deliveryId = 'd1'): HealthInput => ({ kind: 'attempt_succeeded', at, deliveryId });
const apply = (state: HealthState, input: HealthInput) => applyHealth('railhook', state, input);
const fold = (inputs: HealthInput[], from: HealthState = initialHealth()) =>
  foldHealth('railhook', inputs, from);
/** `n` failures of different deliveries, one second apart, the last at `at`. */
const failures = (n: number, at: number) =>
  Array.from({ length: n }, (_, i) => failed(at - (n - 1 - i) * SEC, `d${i}`));
const opened = () => fold(failures(10, T0)).state;

describe('R-RH-DEFER circuit breaker', () => {
  it('R-RH-DEFER: the assumed parameters are 10 failures and 60 s open', () => {
    expect(RH_CIRCUIT_THRESHOLD).toBe(10);
    expect(RH_CIRCUIT_OPEN_MS).toBe(60_000);
  });

  it('R-RH-DEFER: nine consecutive failures keep the breaker closed', () => {
    const { state } = fold(failures(9, T0));
    expect(circuitPhase(state.circuit, T0)).toBe('closed');
    expect(sendDecision('railhook', state, T0, {})).toEqual({ kind: 'send' });
  });

  it('R-RH-DEFER: the 10th consecutive failure opens it; deliveries defer until it half-opens, spending no attempt', () => {
    const s = opened();
    expect(s.circuit).toMatchObject({ openUntil: T0 + 60 * SEC, trips: 1 });
    expect(sendDecision('railhook', s, T0 + 15 * SEC, { deliveryId: 'x' })).toEqual({
      kind: 'defer',
      code: 'circuit_open',
      retryInMs: 45 * SEC,
    });
  });

  it('R-RH-DEFER: there is no disable and no notice, however long it fails', () => {
    const inputs: HealthInput[] = [];
    for (let at = T0; at < T0 + 96 * HOUR; at += MIN) inputs.push(failed(at, `d${at}`));
    inputs.push({ kind: 'delivery_exhausted', at: T0 + 96 * HOUR, deliveryId: 'd1' });
    inputs.push({ kind: 'gone', at: T0 + 96 * HOUR, deliveryId: 'd2' });
    const { state, effects } = fold(inputs);
    expect(state.status).toBe('active');
    expect(effects).toEqual([]);
    expect(acceptsNewEvents('railhook', state)).toBe('queue');
  });

  it('R-RH-DEFER: a success resets the failure count', () => {
    const { state } = fold([...failures(9, T0), ok(T0 + SEC), ...failures(9, T0 + MIN)]);
    expect(circuitPhase(state.circuit, T0 + MIN)).toBe('closed');
  });

  it('R-RH-DEFER: failures of attempts already in flight while open do not extend it', () => {
    const s = opened();
    const { state } = apply(s, failed(T0 + 30 * SEC, 'late'));
    expect(state.circuit?.openUntil).toBe(T0 + 60 * SEC);
  });

  it('R-RH-DEFER: half-open lets exactly one claimed delivery through', () => {
    const s = opened();
    const at = T0 + 61 * SEC;
    expect(circuitPhase(s.circuit, at)).toBe('half_open');
    // Nobody holds the probe: the first delivery is told to claim it.
    expect(sendDecision('railhook', s, at, { deliveryId: 'a' })).toEqual({
      kind: 'defer',
      code: 'circuit_open',
      retryInMs: 10 * SEC,
      claimProbe: true,
    });
    const claimed = apply(s, { kind: 'probe_claim', at, deliveryId: 'a' }).state;
    // A second claim loses.
    expect(apply(claimed, { kind: 'probe_claim', at, deliveryId: 'b' }).state).toBe(claimed);
    expect(sendDecision('railhook', claimed, at, { deliveryId: 'a' })).toEqual({ kind: 'send' });
    expect(sendDecision('railhook', claimed, at, { deliveryId: 'b' })).toEqual({
      kind: 'defer',
      code: 'circuit_open',
      retryInMs: 10 * SEC,
    });
  });

  it('R-RH-DEFER: a claim before the open time is over is refused', () => {
    const s = opened();
    expect(apply(s, { kind: 'probe_claim', at: T0 + 30 * SEC, deliveryId: 'a' }).state).toBe(s);
  });

  it('R-RH-DEFER: a lost probe (its worker died) frees the slot after its lease', () => {
    const at = T0 + 61 * SEC;
    const claimed = apply(opened(), { kind: 'probe_claim', at, deliveryId: 'a' }).state;
    const later = at + 6 * MIN;
    expect(sendDecision('railhook', claimed, later, { deliveryId: 'b' })).toMatchObject({ claimProbe: true });
    const b = apply(claimed, { kind: 'probe_claim', at: later, deliveryId: 'b' }).state;
    expect(sendDecision('railhook', b, later, { deliveryId: 'b' })).toEqual({ kind: 'send' });
  });

  it('R-RH-DEFER: the probe succeeding closes the breaker', () => {
    const at = T0 + 61 * SEC;
    const claimed = apply(opened(), { kind: 'probe_claim', at, deliveryId: 'a' }).state;
    const { state } = apply(claimed, ok(at + SEC, 'a'));
    expect(circuitPhase(state.circuit, at + SEC)).toBe('closed');
    expect(state.circuit).toEqual({ failures: 0, trips: 1 });
    expect(sendDecision('railhook', state, at + SEC, { deliveryId: 'z' })).toEqual({ kind: 'send' });
  });

  it('R-RH-DEFER: the probe failing re-opens it for another 60 s', () => {
    const at = T0 + 61 * SEC;
    const claimed = apply(opened(), { kind: 'probe_claim', at, deliveryId: 'a' }).state;
    const { state } = apply(claimed, failed(at + 2 * SEC, 'a'));
    expect(state.circuit).toMatchObject({ openUntil: at + 2 * SEC + 60 * SEC, trips: 2 });
    expect(state.circuit?.probe).toBeUndefined();
    expect(sendDecision('railhook', state, at + 3 * SEC, { deliveryId: 'a' })).toEqual({
      kind: 'defer',
      code: 'circuit_open',
      retryInMs: 59 * SEC,
    });
  });

  it('R-RH-DEFER: a caller that cannot claim may send once the open time is over', () => {
    expect(sendDecision('railhook', opened(), T0 + 61 * SEC, {})).toEqual({ kind: 'send' });
  });

  it('R-RH-DEFER: a test delivery is never held by the breaker, and its 2xx closes it', () => {
    const s = opened();
    expect(sendDecision('railhook', s, T0 + SEC, { isTest: true })).toEqual({ kind: 'send' });
    const { state } = apply(s, { kind: 'test_result', at: T0 + SEC, ok: true });
    expect(circuitPhase(state.circuit, T0 + SEC)).toBe('closed');
  });

  it('R-RH-DEFER: a manual pause is a deferral too; resume releases', () => {
    const paused = apply(initialHealth(), { kind: 'pause', at: T0 }).state;
    expect(acceptsNewEvents('railhook', paused)).toBe('queue');
    expect(sendDecision('railhook', paused, T0 + SEC, {})).toEqual({
      kind: 'defer',
      code: 'endpoint_paused',
      retryInMs: 60 * SEC,
    });
    expect(apply(paused, { kind: 'resume', at: T0 + MIN }).effects).toEqual([{ kind: 'release_held' }]);
  });

  it('R-RH-DEFER: only an operator disable stops Railhook deliveries', () => {
    const { state, effects } = apply(initialHealth(), { kind: 'disable', at: T0 });
    expect(state.status).toBe('disabled');
    expect(effects).toContainEqual({ kind: 'notify', notice: 'disabled', episode: 1 });
    expect(sendDecision('railhook', state, T0 + SEC, {})).toMatchObject({
      kind: 'drop',
      code: 'endpoint_disabled',
    });
    expect(acceptsNewEvents('railhook', state)).toBe('skip');
  });
});
