import { describe, expect, it } from 'vitest';
import {
  NOTICES,
  operationalEventId,
  operationalEventType,
  operationalPayload,
  reasonLine,
  renderEmail,
  type Notice,
  type NoticeContext,
} from '../../../src/notify/notices.js';

const AT = Date.UTC(2025, 2, 14, 9, 26, 53, 589);
const AT_ISO = '2025-03-14T09:26:53.589Z';

const ctx = (over: Partial<NoticeContext> = {}): NoticeContext => ({
  tenantId: 'ten_acme',
  endpointId: 'ep_123',
  url: 'https://hooks.example.com/herald',
  reason: 'http_503',
  at: AT,
  episode: 2,
  preset: 'standard',
  ...over,
});

describe('notify: email rendering', () => {
  it.each(NOTICES)('notify: the %s email names the endpoint URL, the reason and the ISO time', (notice) => {
    const { subject, text } = renderEmail(notice, ctx());
    expect(text).toContain('https://hooks.example.com/herald');
    expect(text).toContain('http_503');
    expect(text).toContain('HTTP 503');
    expect(text).toContain(AT_ISO);
    expect(subject).toContain('https://hooks.example.com/herald');
    expect(subject).toContain(notice);
    expect(subject).not.toMatch(/[\r\n]/);
  });

  it('notify: a multi-line reason or URL cannot inject headers or lines into the subject', () => {
    const { subject, text } = renderEmail(
      'disabled',
      ctx({ url: 'https://a.example/x\r\nBcc: evil@example.com', reason: 'gone\nBcc: x@y' }),
    );
    expect(subject).not.toMatch(/[\r\n]/);
    expect(text).not.toMatch(/^Bcc:/m);
  });

  it('notify: a very long URL is shortened in the subject but kept whole in the body', () => {
    const url = `https://hooks.example.com/${'a'.repeat(400)}`;
    const { subject, text } = renderEmail('degraded', ctx({ url }));
    expect(subject.length).toBeLessThan(200);
    expect(text).toContain(url);
  });

  it('notify: without a reason the email says none was recorded', () => {
    expect(renderEmail('disabled', ctx({ reason: undefined })).text).toContain('no reason was recorded');
  });

  it('notify: the description labels the endpoint', () => {
    expect(renderEmail('suspended', ctx({ description: 'Billing sync' })).text).toContain('Billing sync');
  });

  it('notify: known reason codes get a plain-English gloss, unknown ones stay as given', () => {
    expect(reasonLine('gone')).toBe('gone (your endpoint answered 410 Gone)');
    expect(reasonLine('timeout')).toContain('did not answer');
    expect(reasonLine('network_EHOSTUNREACH')).toContain('EHOSTUNREACH');
    expect(reasonLine('something_new')).toBe('something_new');
  });

  it('notify: an invalid time renders instead of throwing', () => {
    expect(renderEmail('recovered', ctx({ at: Number.NaN })).text).toContain('unknown time');
  });

  it('R-SMENGO-HEALTH: the disabled email gives the recovery path (test delivery, 2xx, enable) and the events API', () => {
    const { text } = renderEmail('disabled', ctx({ preset: 'smengo', reason: 'gone' }));
    expect(text).toMatch(/test delivery/);
    expect(text).toMatch(/2xx/);
    expect(text).toMatch(/Enable the endpoint again/);
    expect(text).toMatch(/will not be sent after you enable/);
    expect(text).toContain('/v1/events');
    expect(text).toContain('410 Gone');
  });

  it('R-DT-HEALTH: the suspended email says events are held (10,000 or 14 days) and re-enabling drains them', () => {
    const { text } = renderEmail('suspended', ctx({ preset: 'dongtien', reason: 'consecutive_failures' }));
    expect(text).toContain('10,000 events');
    expect(text).toContain('14 days');
    expect(text).toContain('2025-03-28T09:26:53.589Z'); // suspension + 14 days
    expect(text).toMatch(/Re-enable the endpoint/);
    expect(text).toMatch(/one at a time, oldest first/);
    expect(text).toMatch(/held/);
  });

  it('R-DT-HEALTH: the disabled email of a dongtien endpoint points at the dead-letter list', () => {
    const { text } = renderEmail('disabled', ctx({ preset: 'dongtien', reason: 'hold_expired' }));
    expect(text).toMatch(/dead-letter list/);
    expect(text).toMatch(/replay/);
  });

  it('R-BIRD-HEALTH: the degraded email says deliveries continue and how degradation clears', () => {
    const { text } = renderEmail('degraded', ctx({ preset: 'bird' }));
    expect(text).toMatch(/still receives deliveries/);
    expect(text).toMatch(/one email like this per degradation period/);
    expect(text).toMatch(/Fix your endpoint/);
    expect(text).toContain('2025-03-19T09:26:53.589Z'); // about 5 days on
  });

  it('R-BIRD-HEALTH: the paused email says it never resumes by itself: re-enable, then replay the window', () => {
    const { text } = renderEmail('paused', ctx({ preset: 'bird' }));
    expect(text).toMatch(/never resumes by itself/);
    expect(text).toMatch(/back to active/);
    expect(text).toMatch(/Replay the window/);
    expect(text).toMatch(/3 days/);
    expect(text).toMatch(/cannot be replayed/);
  });
});

describe('notify: operational webhook payload', () => {
  it('notify: event types are endpoint.<notice>', () => {
    const types = Object.fromEntries(NOTICES.map((n) => [n, operationalEventType(n)]));
    expect(types).toEqual({
      disabled: 'endpoint.disabled',
      degraded: 'endpoint.degraded',
      suspended: 'endpoint.suspended',
      recovered: 'endpoint.recovered',
      paused: 'endpoint.paused',
    });
  });

  it('notify: the payload is {type, timestamp, data} and identical for the same notification', () => {
    const body = operationalPayload('suspended', ctx());
    expect(JSON.parse(body)).toEqual({
      type: 'endpoint.suspended',
      timestamp: AT_ISO,
      data: {
        endpointId: 'ep_123',
        url: 'https://hooks.example.com/herald',
        reason: 'http_503',
        episode: 2,
        at: AT_ISO,
      },
    });
    expect(operationalPayload('suspended', ctx())).toBe(body);
    expect(JSON.parse(operationalPayload('recovered', ctx({ reason: undefined }))).data.reason).toBeNull();
  });

  it('notify: the event id is deterministic per (endpoint, notice, episode)', () => {
    const ids = (['disabled', 'degraded'] as Notice[]).flatMap((n) =>
      [1, 2].map((episode) => operationalEventId(n, { endpointId: 'ep_1', episode })),
    );
    expect(ids).toEqual([
      'evt_op_ep_1_disabled_1',
      'evt_op_ep_1_disabled_2',
      'evt_op_ep_1_degraded_1',
      'evt_op_ep_1_degraded_2',
    ]);
  });
});
