import type { FC } from 'hono/jsx';
import { ActionButton, Csrf, Page, ProblemBox, type ProblemView, type Viewer } from './layout.js';
import { t } from './strings.js';

export const SignInPage: FC<{ csrf: string; notice?: string; problem?: ProblemView }> = (p) => (
  <Page title={t.signIn.title} notice={p.notice}>
    <p>{t.signIn.intro}</p>
    <ProblemBox problem={p.problem} />
    <form method="post" action="/portal/sign-in">
      <Csrf token={p.csrf} />
      <div class="field">
        <label for="key">{t.signIn.key}</label>
        <input id="key" name="key" type="password" autocomplete="off" required aria-describedby="key-hint" />
        <p class="hint" id="key-hint">
          {t.signIn.keyHint}
        </p>
      </div>
      <button type="submit">{t.signIn.submit}</button>
    </form>
  </Page>
);

export interface EventJson {
  eventId: string;
  type: string;
  occurredAt?: string;
  createdAt?: string;
  payload?: unknown;
}

export const EventsPage: FC<{ viewer: Viewer; rows: EventJson[]; type?: string; problem?: ProblemView }> = (
  p,
) => (
  <Page title={t.events.title} viewer={p.viewer}>
    <p>{t.events.intro}</p>
    <form method="get" action="/portal/events" class="filters" role="search">
      <div class="field">
        <label for="f-etype">{t.events.type}</label>
        <input id="f-etype" name="type" value={p.type ?? ''} />
      </div>
      <button type="submit">{t.deliveries.filter}</button>
    </form>
    <ProblemBox problem={p.problem} />
    {p.rows.length === 0 ? (
      <p>{t.events.none}</p>
    ) : (
      <table>
        <thead>
          <tr>
            <th scope="col">{t.deliveries.created}</th>
            <th scope="col">{t.events.type}</th>
            <th scope="col">{t.events.id}</th>
          </tr>
        </thead>
        <tbody>
          {p.rows.map((e) => (
            <tr>
              <td>{e.occurredAt ?? e.createdAt ?? ''}</td>
              <td>{e.type}</td>
              <td>
                <a href={`/portal/events/${encodeURIComponent(e.eventId)}`}>{e.eventId}</a>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    )}
  </Page>
);

export const EventPage: FC<{ viewer: Viewer; e: EventJson }> = ({ viewer, e }) => (
  <Page title={`${t.events.id} ${e.eventId}`} viewer={viewer}>
    <dl class="facts">
      <dt>{t.events.type}</dt>
      <dd>{e.type}</dd>
      <dt>{t.deliveries.created}</dt>
      <dd>{e.occurredAt ?? e.createdAt ?? ''}</dd>
    </dl>
    <h2>{t.events.payload}</h2>
    <pre class="body">{JSON.stringify(e.payload, null, 2)}</pre>
  </Page>
);

export interface SourceJson {
  sourceId: string;
  name?: string;
  ingestUrl?: string;
  destinations?: Array<{ destinationId?: string; url?: string }>;
}

export const SourcesPage: FC<{ viewer: Viewer; rows: SourceJson[]; problem?: ProblemView }> = (p) => (
  <Page title={t.sources.title} viewer={p.viewer}>
    <ProblemBox problem={p.problem} />
    {p.rows.length === 0 ? <p>{t.sources.none}</p> : null}
    <div class="cards">
      {p.rows.map((s) => (
        <article class="card">
          <h2>{s.name ?? s.sourceId}</h2>
          <dl>
            <dt>{t.sources.ingestUrl}</dt>
            <dd>
              <code>{s.ingestUrl ?? ''}</code>
            </dd>
            <dt>{t.sources.destinations}</dt>
            <dd>{(s.destinations ?? []).map((d) => d.url).join(', ')}</dd>
          </dl>
        </article>
      ))}
    </div>
  </Page>
);

export interface ForwardDeadLetterJson {
  id: string;
  /** The source the forward came in on (forwards index it as their event type). */
  eventType?: string;
  createdAt?: string;
  lastError?: string | null;
}

export const ForwardsPage: FC<{
  viewer: Viewer;
  rows: ForwardDeadLetterJson[];
  notice?: string;
  problem?: ProblemView;
}> = (p) => (
  <Page title={t.forwards.title} viewer={p.viewer} notice={p.notice}>
    <ProblemBox problem={p.problem} />
    <h2>{t.forwards.undelivered}</h2>
    {p.rows.length === 0 ? (
      <p>{t.forwards.none}</p>
    ) : (
      <table>
        <thead>
          <tr>
            <th scope="col">{t.deliveries.created}</th>
            <th scope="col">{t.sources.title}</th>
            <th scope="col">{t.deliveries.lastError}</th>
            <th scope="col">{t.forwards.retry}</th>
          </tr>
        </thead>
        <tbody>
          {p.rows.map((f) => (
            <tr>
              <td>{f.createdAt ?? ''}</td>
              <td>{f.eventType ?? ''}</td>
              <td>{f.lastError ? <code>{f.lastError}</code> : '–'}</td>
              <td>
                <ActionButton
                  action={`/portal/forwards/${f.id}/retry`}
                  label={t.forwards.retry}
                  csrf={p.viewer.csrf}
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    )}
  </Page>
);

export interface TenantJson {
  tenantId: string;
  name?: string;
  subscriptionActive?: boolean;
}

export const OperatorPage: FC<{
  viewer: Viewer;
  tenant?: TenantJson;
  lookup?: string;
  notice?: string;
  problem?: ProblemView;
}> = (p) => {
  const active = p.tenant?.subscriptionActive !== false;
  return (
    <Page title={t.operator.title} viewer={p.viewer} notice={p.notice}>
      <form method="get" action="/portal/operator" role="search">
        <div class="field">
          <label for="tenant">{t.operator.lookup}</label>
          <input id="tenant" name="tenant" value={p.lookup ?? ''} required />
        </div>
        <button type="submit">{t.operator.find}</button>
      </form>
      <ProblemBox problem={p.problem} />
      {p.tenant ? (
        <article class="card">
          <h2>{p.tenant.name ?? p.tenant.tenantId}</h2>
          <dl>
            <dt>{t.operator.subscription}</dt>
            <dd>{active ? t.operator.active : t.operator.inactive}</dd>
          </dl>
          <form method="post" action={`/portal/operator/${p.tenant.tenantId}/subscription`}>
            <Csrf token={p.viewer.csrf} />
            <input type="hidden" name="active" value={active ? 'false' : 'true'} />
            <button type="submit">{active ? t.operator.deactivate : t.operator.activate}</button>
          </form>
        </article>
      ) : null}
    </Page>
  );
};
