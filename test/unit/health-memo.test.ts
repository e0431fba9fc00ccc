import { describe, expect, it } from 'vitest';
import { initialHealth } from '../../src/health/engine.js';
import { HEALTH_MEMO_KEY, healthFromDescription, healthMemoCurrent } from '../../src/shared/health-memo.js';

describe('14.4 / issue 16: the endpoint health a delivery reads from the memo', () => {
  const health = { ...initialHealth(), consecutiveFailures: 2 };

  it('a memo read back with its keys in another order, or an absent field, is still current', () => {
    const reordered = Object.fromEntries(Object.entries(health).reverse());
    expect(healthMemoCurrent({ [HEALTH_MEMO_KEY]: reordered }, health)).toBe(true);
    // JSON drops a field set to undefined: the memo read back has no such key.
    expect(healthMemoCurrent({ [HEALTH_MEMO_KEY]: health }, { ...health, reason: undefined })).toBe(true);
  });

  it('a memo that says other health, or none, is not current', () => {
    expect(healthMemoCurrent({ [HEALTH_MEMO_KEY]: { ...health, consecutiveFailures: 3 } }, health)).toBe(
      false,
    );
    expect(healthMemoCurrent(undefined, health)).toBe(false);
    expect(healthMemoCurrent({}, health)).toBe(false);
  });

  it('R-DT-HEALTH: only a running endpoint with no workflow task pending answers from its memo', () => {
    const memo = { [HEALTH_MEMO_KEY]: health };
    expect(healthFromDescription({ running: true, memo, pendingTask: false })).toEqual(health);
    // A report accepted but not applied yet keeps a task pending: only a query sees it.
    expect(healthFromDescription({ running: true, memo, pendingTask: true })).toBeUndefined();
    expect(healthFromDescription({ running: false, memo, pendingTask: false })).toBeUndefined();
    expect(healthFromDescription({ running: true, memo: {}, pendingTask: false })).toBeUndefined();
  });
});
