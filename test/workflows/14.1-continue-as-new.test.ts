// Issue 14.1: long waits must not grow a delivery's history until Temporal terminates it
// (51,200 events: nothing sent, nothing dead-lettered, nobody told). End to end on the
// time-skipping server with the real endpoint and delivery workflows and activities.
import type { WorkflowHandle, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TERMINAL_STATUSES, type DeliveryState } from '../../src/shared/delivery-types.js';
import { pauseEndpointUpdate, resumeEndpointUpdate } from '../../src/shared/endpoint-messages.js';
import { EndpointHarness } from '../helpers/endpoint-harness.js';

const S = 1000;
const MIN = 60 * S;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
/** Far below Temporal's 51,200, far above what one run of a delivery needs. */
const MAX_RUN_EVENTS = 2_000;

const statuses = new Map<string, number>();
const ended = (s: DeliveryState) => TERMINAL_STATUSES.includes(s.status);

describe('14.1 long waits continue as new (R-CRASH: no delivery silently dropped)', () => {
  let h: EndpointHarness;
  beforeAll(async () => {
    h = await EndpointHarness.create();
    h.respond((req, _i, res) => res.writeHead(statuses.get(req.path) ?? 200).end());
  });
  afterAll(async () => h?.close());

  /** Events in the current run, and whether the chain still is the one delivery. */
  const runFacts = async (d: WorkflowHandle) => {
    const latest = h.env.client.workflow.getHandle(d.workflowId);
    const history = await latest.fetchHistory();
    const first = await h.env.client.workflow.getHandle(d.workflowId, (d as WorkflowHandleWithFirstExecutionRunId).firstExecutionRunId).describe();
    const now = await latest.describe();
    return { events: history.events?.length ?? 0, firstRun: first.status.name, runId: now.runId, workflowId: now.workflowId };
  };

  /** Skips `total` in steps, checking the current run never grows past the bound. */
  const skip = async (d: WorkflowHandle, total: number, step: number) => {
    let maxEvents = 0;
    // Steps grow from an hour, so a run that grows without bound fails within hours of skip.
    for (let t = 0; t < total; ) {
      const dt = Math.min(step, Math.max(HOUR, t / 4), total - t);
      await h.advance(dt);
      t += dt;
      const s = await h.delivery(d);
      if (ended(s)) break;
      maxEvents = Math.max(maxEvents, (await runFacts(d)).events);
      // Fail as soon as a run grows past the bound, not after a month of skipped polls, and
      // stop that delivery so its polling does not slow the tests after this one.
      if (maxEvents >= MAX_RUN_EVENTS) await h.env.client.workflow.getHandle(d.workflowId).terminate('run too long');
      expect(maxEvents).toBeLessThan(MAX_RUN_EVENTS);
    }
    return maxEvents;
  };

  it('14.1 R-SMENGO-PAUSE: a delivery held by a 30-day pause is delivered after resume; no run passes 2,000 events; still one delivery (same id, same log)', async () => {
    const { endpointId, handle: ep } = await h.createEndpoint('smengo');
    // Queued before the pause (R-SMENGO-PAUSE): its first attempt fails, then the pause.
    statuses.set(`/${endpointId}`, 500);
    const d = await h.publish(endpointId, 'smengo');
    await h.advanceUntil(async () => (await h.delivery(d)).attemptsInRound === 1, S, 10 * S);
    await ep.executeUpdate(pauseEndpointUpdate);
    statuses.set(`/${endpointId}`, 200);

    const started = Date.now();
    const maxEvents = await skip(d, 30 * DAY, DAY);
    console.log(`30 days of pause skipped in ${Date.now() - started} ms; largest run ${maxEvents} events`);
    const held = await h.delivery(d);
    expect(held.status).toBe('pending');
    expect(held.attemptsInRound).toBe(1);
    expect(h.requestsFor(endpointId)).toHaveLength(1);
    expect(maxEvents).toBeLessThan(MAX_RUN_EVENTS);

    await ep.executeUpdate(resumeEndpointUpdate);
    await h.advanceUntil(async () => ended(await h.delivery(d)), 5 * MIN, 2 * HOUR);
    const s = await h.delivery(d);
    expect(s.status).toBe('succeeded');
    expect(h.requestsFor(endpointId)).toHaveLength(2);
    // One log across the runs: the failed attempt, the month of deferrals, the success.
    expect(s.attempts.slice(0, held.attempts.length)).toEqual(held.attempts.slice(0, -1).concat(s.attempts[held.attempts.length - 1]!));
    const attempts = s.attempts.filter((a) => a.kind === 'attempt');
    expect(attempts.map((a) => [a.attempt, a.code])).toEqual([[1, 'http_500'], [2, undefined]]);
    const deferrals = s.attempts.filter((a) => a.kind === 'deferral');
    expect(deferrals.every((a) => a.code === 'endpoint_paused' && a.attempt === 2)).toBe(true);
    expect(Date.parse(deferrals.at(-1)!.finishedAt) - Date.parse(deferrals[0]!.startedAt)).toBeGreaterThan(30 * DAY - HOUR);
    // A month of rechecks is a few rows, not one a minute (what continueAsNew carries).
    expect(s.attempts.length).toBeLessThan(50);

    const facts = await runFacts(d);
    expect(facts.workflowId).toBe(d.workflowId);
    expect(facts.firstRun).toBe('CONTINUED_AS_NEW');
    expect(facts.events).toBeLessThan(MAX_RUN_EVENTS);
    // The receiver saw the delivery's own ids, unchanged by the new runs.
    const req = h.requestsFor(endpointId)[1]!;
    expect(req.headers['webhook-id']).toBe(s.eventId);
    expect(String(req.headers['smengo-delivery-id'])).toBe(`${d.workflowId}:2`);
  }, 600_000);

  it('14.1 R-RH-LIFETIME R-RH-DEFER: a Railhook delivery held back for 5 days (paused endpoint, rechecked every minute) ends exhausted (lifetime_exceeded) at 96 h, nothing sent, no run past 2,000 events', async () => {
    const { endpointId, handle: ep } = await h.createEndpoint('railhook');
    await ep.executeUpdate(pauseEndpointUpdate);
    const d = await h.publish(endpointId, 'railhook');
    const created = await h.env.currentTimeMs();

    let maxEvents = await skip(d, 95 * HOUR, 5 * HOUR);
    expect((await h.delivery(d)).status).toBe('pending');
    maxEvents = Math.max(maxEvents, await skip(d, 5 * DAY - 95 * HOUR, 5 * HOUR));
    expect(maxEvents).toBeLessThan(MAX_RUN_EVENTS);

    const s = await h.delivery(d);
    expect(s.status).toBe('exhausted');
    expect(s.lastCode).toBe('lifetime_exceeded');
    expect(s.attemptsInRound).toBe(0);
    expect(h.requestsFor(endpointId)).toHaveLength(0);
    expect(s.attempts.every((a) => a.kind === 'deferral' && a.code === 'endpoint_paused')).toBe(true);
    // The wait ran up to the lifetime and no further (R-RH-LIFETIME: 96 h from creation).
    const lastCheck = Date.parse(s.attempts.at(-1)!.finishedAt);
    expect(lastCheck).toBeLessThanOrEqual(created + 96 * HOUR);
    expect(lastCheck).toBeGreaterThan(created + 95 * HOUR);
    const facts = await runFacts(d);
    expect(facts.firstRun).toBe('CONTINUED_AS_NEW');
    expect(facts.events).toBeLessThan(MAX_RUN_EVENTS);
  }, 600_000);

});
