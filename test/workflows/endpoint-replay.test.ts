import { readFileSync } from 'node:fs';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { dataConverterFor } from '../../src/temporal/data-converter.js';
import { testConfig, workflowBundle } from '../helpers/temporal.js';

/**
 * Endpoint workflows live for months, so every deploy replays histories the code before it
 * wrote. This one was recorded on 489b3de (a dongtien endpoint: a failure reported, a
 * description, a secret rotation, a transformation, a pause, a resume, a URL change),
 * before the endpoint counted its snapshot revisions in its memo (issue 16). Its payloads
 * are encrypted with a key made for the recording alone, kept beside it.
 */
const fixture = JSON.parse(
  readFileSync(new URL('../fixtures/endpoint-history-489b3de.json', import.meta.url), 'utf8'),
) as { codecKey: string; workflowId: string; history: string };

describe('issue 16: endpoint histories recorded before the snapshot memo replay on this code', () => {
  it('replays the recorded history without a nondeterminism error (patched() guards the new memo writes)', async () => {
    const history = temporal.api.history.v1.History.decode(Buffer.from(fixture.history, 'base64'));
    expect(history.events.length).toBeGreaterThan(30);
    const dataConverter = dataConverterFor(testConfig({ HERALD_CODEC_KEYS: fixture.codecKey }));
    await expect(
      Worker.runReplayHistory(
        { workflowBundle: workflowBundle(), dataConverter },
        history,
        fixture.workflowId,
      ),
    ).resolves.toBeUndefined();
  });
});
