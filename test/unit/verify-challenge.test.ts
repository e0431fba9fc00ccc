import { describe, expect, it } from 'vitest';
import { challengeAnswered } from '../../src/activities/verify-endpoint.js';
import { VERIFICATION_EVENT_TYPE } from '../../src/shared/verification.js';

// Issue 14.15: what counts as a receiver's answer to the verification challenge.
describe('14.15 challengeAnswered', () => {
  const challenge = 'c_2f9a';
  const answered = (responseBody: string | undefined, encoding?: 'base64') =>
    challengeAnswered({ responseBody, responseBodyEncoding: encoding }, challenge);

  it('14.15: the documented answer passes, other members alongside it too', () => {
    expect(answered(JSON.stringify({ challenge }))).toBe(true);
    expect(answered(JSON.stringify({ challenge, ok: true }))).toBe(true);
  });

  it('14.15: a catch-all receiver that sends the request body back does not pass', () => {
    const request = JSON.stringify({
      type: VERIFICATION_EVENT_TYPE,
      timestamp: '2026-12-06T00:00:00.000Z',
      challenge,
      data: { endpointId: 'ep_1' },
    });
    expect(answered(request)).toBe(false);
    expect(answered(JSON.stringify(JSON.parse(request), null, 2))).toBe(false);
  });

  it('14.15: a plain ok, another value, a non-object or a binary body does not pass', () => {
    for (const body of [
      'ok',
      JSON.stringify({ challenge: 'other' }),
      JSON.stringify(challenge),
      'null',
      '',
      undefined,
    ])
      expect(answered(body), String(body)).toBe(false);
    expect(answered(Buffer.from(JSON.stringify({ challenge })).toString('base64'), 'base64')).toBe(false);
  });
});
