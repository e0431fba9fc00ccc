import { readFileSync } from 'node:fs';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { dataConverterFor } from '../../src/temporal/data-converter.js';
import { testConfig, workflowBundle } from '../helpers/temporal.js';

/**
 * Entity workflows live for months, so every deploy replays histories the code before it
 * wrote. Each fixture keeps beside its history the codec key made for the recording alone;
 * the one recorded without the codec (below) is plaintext.
 */
const recorded = (name: string) => {
  const fixture = JSON.parse(readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8')) as {
    codecKey: string;
    workflowId: string;
    history: string;
  };
  const history = temporal.api.history.v1.History.decode(Buffer.from(fixture.history, 'base64'));
  return { ...fixture, history };
};

/** Replays a recorded history on this code's workflows; `config` adds to the codec key's. */
const replay = (fixture: ReturnType<typeof recorded>, config: Record<string, string> = {}) =>
  Worker.runReplayHistory(
    {
      workflowBundle: workflowBundle(),
      dataConverter: dataConverterFor(testConfig({ HERALD_CODEC_KEYS: fixture.codecKey, ...config })),
    },
    fixture.history,
    fixture.workflowId,
  );

// Recorded on 489b3de, before endpoints and tenants counted their read revisions in their memo.
describe('issue 16: entity histories recorded before the read-revision memo replay on this code', () => {
  it.each([
    [
      'an endpoint (dongtien: a failure reported, a description, a secret rotation, a transformation, a pause, a resume, a URL change)',
      'endpoint-history-489b3de.json',
      30,
    ],
    [
      'a tenant (a key added and revoked, the subscription off and on, a rate limit)',
      'tenant-history-489b3de.json',
      15,
    ],
  ])(
    'replays %s without a nondeterminism error (patched() guards the new memo writes)',
    async (_what, file, least) => {
      const fixture = recorded(file);
      expect(fixture.history.events.length).toBeGreaterThan(least);
      await expect(replay(fixture)).resolves.toBeUndefined();
    },
  );
});

describe('R-BIRD-HEALTH: an endpoint history whose notice was scheduled with a count of attempts replays on this code', () => {
  // Recorded on 6a13337, while a notice was still retried for 20 attempts: a Bird endpoint
  // degraded with the mail server down, its degraded notice retrying. Notices now retry for
  // a time (schedule-to-close) instead; a replay matches a scheduled activity by its id and
  // type only, so the runs that scheduled theirs the old way go on without a patch.
  it('replays without a nondeterminism error', async () => {
    const fixture = recorded('endpoint-notice-history-6a13337.json');
    const notice = fixture.history.events.find(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'notifyEndpoint',
    );
    expect(notice?.activityTaskScheduledEventAttributes?.retryPolicy?.maximumAttempts).toBe(20);
    // The endpoint harness that recorded it runs without the payload codec: its payloads
    // (a test endpoint's generated secret among them) are plaintext.
    await expect(replay(fixture, { HERALD_CODEC_ACCEPT_PLAINTEXT: 'true' })).resolves.toBeUndefined();
  });
});
