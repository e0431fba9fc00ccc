import type { FC } from 'hono/jsx';
import type { DeadLetterJson, PreviewItemJson, PreviewJson } from './api-types.js';
import { ActionButton, Csrf, Page, ProblemBox, type ProblemView, type Viewer } from './layout.js';
import { t } from './strings.js';

export const DeadLettersPage: FC<{
  viewer: Viewer;
  rows: DeadLetterJson[];
  notice?: string;
  problem?: ProblemView;
}> = (p) => (
  <Page title={t.deadLetters.title} viewer={p.viewer} notice={p.notice}>
    <p>{t.deadLetters.intro}</p>
    <ProblemBox problem={p.problem} />
    {p.rows.length === 0 ? (
      <p>{t.deadLetters.none}</p>
    ) : (
      <>
        <form method="post" action="/portal/dead-letters/retry" id="bulk-retry">
          <Csrf token={p.viewer.csrf} />
        </form>
        <table>
          <thead>
            <tr>
              <th scope="col">
                <input
                  type="checkbox"
                  id="select-all"
                  data-select-all="ids"
                  aria-label={t.deadLetters.selectAll}
                />
              </th>
              <th scope="col">{t.deliveries.created}</th>
              <th scope="col">{t.deliveries.eventType}</th>
              <th scope="col">{t.deliveries.endpoint}</th>
              <th scope="col">{t.deliveries.attempts}</th>
              <th scope="col">{t.deliveries.lastError}</th>
              <th scope="col">{t.deadLetters.retry}</th>
            </tr>
          </thead>
          <tbody>
            {p.rows.map((r) => (
              <tr>
                <td>
                  {r.retryable ? (
                    <input
                      type="checkbox"
                      name="ids"
                      value={r.id}
                      form="bulk-retry"
                      aria-label={t.deadLetters.select(r.id)}
                    />
                  ) : null}
                </td>
                <td>
                  <a href={`/portal/deliveries/${r.id}`}>{r.createdAt}</a>
                </td>
                <td>{r.eventType}</td>
                <td>
                  <a href={`/portal/endpoints/${r.endpointId}`}>{r.endpointId}</a>
                </td>
                <td>{r.attemptCount}</td>
                <td>{r.lastError ? <code>{r.lastError}</code> : '–'}</td>
                <td>
                  {r.retryable ? (
                    <ActionButton
                      action={`/portal/dead-letters/${r.id}/retry`}
                      label={t.deadLetters.retry}
                      csrf={p.viewer.csrf}
                    />
                  ) : (
                    <span class="muted">{t.deadLetters.notRetryable}</span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <p>
          <button type="submit" form="bulk-retry">
            {t.deadLetters.retrySelected}
          </button>
        </p>
      </>
    )}
  </Page>
);

const Group: FC<{ id: string; title: string; hint: string; items: PreviewItemJson[] }> = (p) => (
  <section class={`group group-${p.id}`} aria-labelledby={`g-${p.id}`}>
    <h3 id={`g-${p.id}`}>
      {p.title} <span class="count">{p.items.length}</span>
    </h3>
    <p class="hint">{p.hint}</p>
    {p.items.length === 0 ? (
      <p class="muted">{t.replay.empty}</p>
    ) : (
      <ul>
        {p.items.map((i) => (
          <li>
            <a href={`/portal/deliveries/${i.id}`}>{i.id}</a> {i.eventType}{' '}
            <span class="muted">{i.createdAt}</span>
            {i.reason ? <code> {i.reason}</code> : null}
            {i.nextAttemptAt ? <span class="muted"> → {i.nextAttemptAt}</span> : null}
          </li>
        ))}
      </ul>
    )}
  </section>
);

/** R-DT-REPLAY: the failures sorted into blocked, waiting and ready, before anything is sent. */
export const ReplayFailuresPage: FC<{
  viewer: Viewer;
  preview: PreviewJson;
  endpointId?: string;
  notice?: string;
  problem?: ProblemView;
}> = (p) => (
  <Page title={t.replay.title} viewer={p.viewer} notice={p.notice}>
    <ProblemBox problem={p.problem} />
    <dialog open aria-labelledby="replay-h" class="dialog">
      <h2 id="replay-h">{t.replay.title}</h2>
      <p>{t.replay.intro}</p>
      <Group id="blocked" title={t.replay.blocked} hint={t.replay.blockedHint} items={p.preview.blocked} />
      <Group id="waiting" title={t.replay.waiting} hint={t.replay.waitingHint} items={p.preview.waiting} />
      <Group id="ready" title={t.replay.ready} hint={t.replay.readyHint} items={p.preview.ready} />
      {p.preview.truncated ? <p class="hint">{t.replay.truncated}</p> : null}
      <form
        method="post"
        action={`/portal/replay${p.endpointId ? `?endpointId=${p.endpointId}` : ''}`}
        class="inline"
      >
        <Csrf token={p.viewer.csrf} />
        <button type="submit" disabled={p.preview.ready.length === 0}>
          {t.replay.confirm(p.preview.ready.length)}
        </button>
      </form>{' '}
      <a class="button" href="/portal">
        {t.replay.cancel}
      </a>
    </dialog>
  </Page>
);
