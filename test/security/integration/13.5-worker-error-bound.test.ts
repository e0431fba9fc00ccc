// Issue 13.5 (third bullet): a send that keeps throwing inside Herald (worker_error) must not
// repeat for ever unspent. The workflow's bound is what is under test, so the send throws
// from the harness's send gate (the first thing the real send activity runs), on the
// time-skipping server with the real delivery workflow.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SendGate } from '../../../src/activities/index.js';
import { TERMINAL_STATUSES, type DeliveryState } from '../../../src/shared/delivery-types.js';
import { deliveryStateQuery } from '../../../src/shared/messages.js';
import { DeliveryHarness } from '../../helpers/delivery-harness.js';

const S = 1000;
const HOUR = 3600 * S;
/** The bound README states: the 5th send in a row that throws inside Herald spends its attempt. */
const WORKER_ERROR_LIMIT = 5;

/** Deliveries whose send throws, as a send does on a bug (a secret signing rejects, ...). */
const broken = new Set<string>();
const gate: SendGate = async (req) => {
  if (broken.has(req.deliveryId)) throw new Error('signing failed: secret does not decode');
  return undefined;
};

describe('13.5 repeated worker_error is bounded (R-CRASH, R-STATUS)', () => {
  let h: DeliveryHarness;
  beforeAll(async () => {
    h = await DeliveryHarness.create({ gate });
  });
  afterAll(async () => h?.close());

  it(`13.5 R-STATUS: a send that always throws spends an attempt every ${WORKER_ERROR_LIMIT} worker_errors in a row and ends exhausted (worker_error) after the policy's 8 attempts; nothing sent, the log shows each step`, async () => {
    const deliveryId = `dlv_13_5_${Math.random().toString(36).slice(2, 8)}`;
    broken.add(deliveryId);
    const { handle, requests } = await h.start({ preset: 'smengo', deliveryId });
    // Smengo's schedule adds up to ~28 h; three days is room to spare, one hour a step.
    let s: DeliveryState = await handle.query(deliveryStateQuery);
    for (let hour = 0; hour < 72 && !TERMINAL_STATUSES.includes(s.status); hour++) {
      await h.env.sleep(HOUR);
      s = await handle.query(deliveryStateQuery);
      // Never more rows than the bound allows for the whole budget: fail at the first hour
      // of an unbounded loop (720 rows) rather than skip days of it.
      if (s.attempts.length > 8 * WORKER_ERROR_LIMIT) await handle.terminate('unbounded worker_error loop');
      expect(s.attempts.length).toBeLessThanOrEqual(8 * WORKER_ERROR_LIMIT);
    }

    expect(s.status).toBe('exhausted');
    expect(s.lastCode).toBe('worker_error');
    expect(s.attemptsInRound).toBe(8);
    expect(requests()).toHaveLength(0);
    const spent = s.attempts.filter((a) => a.kind === 'attempt');
    expect(spent.map((a) => a.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(spent.every((a) => a.code === 'worker_error' && a.detail?.includes('in a row'))).toBe(true);
    // Before each spent attempt, the unspent repeats that the bound allows, and no more.
    const perAttempt = (n: number) => s.attempts.filter((a) => a.attempt === n).map((a) => a.kind);
    for (let n = 1; n <= 8; n++)
      expect(perAttempt(n)).toEqual([...Array(WORKER_ERROR_LIMIT - 1).fill('lease_expired'), 'attempt']);
    expect(s.attempts.filter((a) => a.kind === 'lease_expired').every((a) => a.code === 'worker_error')).toBe(true);
  }, 300_000);

});
