import type { FC } from 'hono/jsx';
import { recoveryOf } from '../policy/presets.js';
import type { DeliveryJson, DeliveryRowJson, EndpointJson } from './api-types.js';
import { ActionButton, Page, ProblemBox, type ProblemView, type Viewer } from './layout.js';
import { t } from './strings.js';
import { qs } from './api-call.js';

const STATUSES = ['pending', 'processing', 'succeeded', 'failed', 'exhausted', 'dead'];

export interface DeliveryFilters {
  endpointId?: string;
  status?: string;
  eventType?: string;
  until?: string;
}

export const DeliveriesPage: FC<{
  viewer: Viewer;
  rows: DeliveryRowJson[];
  endpoints: EndpointJson[];
  filters: DeliveryFilters;
  pageSize: number;
  problem?: ProblemView;
}> = (p) => {
  const last = p.rows[p.rows.length - 1];
  const older =
    last && p.rows.length >= p.pageSize
      ? `/portal/deliveries${qs({ ...p.filters, until: new Date(Date.parse(last.createdAt) - 1).toISOString() })}`
      : undefined;
  return (
    <Page title={t.deliveries.title} viewer={p.viewer}>
      <p>{t.deliveries.recent}</p>
      <form method="get" action="/portal/deliveries" class="filters" role="search">
        <div class="field">
          <label for="f-endpoint">{t.deliveries.endpoint}</label>
          <select id="f-endpoint" name="endpointId">
            <option value="">{t.deliveries.any}</option>
            {p.endpoints.map((e) => (
              <option value={e.endpointId} selected={p.filters.endpointId === e.endpointId}>
                {e.config.url}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="f-status">{t.deliveries.status}</label>
          <select id="f-status" name="status">
            <option value="">{t.deliveries.any}</option>
            {STATUSES.map((s) => (
              <option value={s} selected={p.filters.status === s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="f-type">{t.deliveries.eventType}</label>
          <input id="f-type" name="eventType" value={p.filters.eventType ?? ''} />
        </div>
        <button type="submit">{t.deliveries.filter}</button>
      </form>
      <ProblemBox problem={p.problem} />
      {p.rows.length === 0 ? (
        <p>{t.deliveries.none}</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">{t.deliveries.created}</th>
              <th scope="col">{t.deliveries.eventType}</th>
              <th scope="col">{t.deliveries.status}</th>
              <th scope="col">{t.deliveries.id}</th>
            </tr>
          </thead>
          <tbody>
            {p.rows.map((r) => (
              <tr>
                <td>{r.createdAt}</td>
                <td>{r.eventType}</td>
                <td>
                  <span class={`status status-${r.status}`}>{r.status}</span>
                </td>
                <td>
                  <a href={`/portal/deliveries/${r.id}`}>{r.id}</a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p class="paging">
        {p.filters.until ? (
          <a href={`/portal/deliveries${qs({ ...p.filters, until: undefined })}`}>{t.deliveries.newest}</a>
        ) : null}{' '}
        {older ? <a href={older}>{t.deliveries.older}</a> : null}
      </p>
    </Page>
  );
};

const responseText = (body?: string, encoding?: string) =>
  body === undefined ? '' : encoding === 'base64' ? `(base64) ${body}` : body;

export const DeliveryPage: FC<{
  viewer: Viewer;
  d: DeliveryJson;
  preset?: string;
  notice?: string;
  problem?: ProblemView;
}> = ({ viewer, d, preset, notice, problem }) => {
  const replayable = recoveryOf(preset).deliveryReplay !== 'none';
  return (
    <Page title={`${t.deliveries.id} ${d.id}`} viewer={viewer} notice={notice}>
      <ProblemBox problem={problem} />
      <dl class="facts">
        <dt>{t.deliveries.status}</dt>
        <dd>
          <span class={`status status-${d.status}`} id="delivery-status">
            {d.status}
          </span>
        </dd>
        <dt>{t.deliveries.eventType}</dt>
        <dd>{d.eventType}</dd>
        <dt>{t.deliveries.endpoint}</dt>
        <dd>
          <a href={`/portal/endpoints/${d.endpointId}`}>{d.endpointId}</a>
        </dd>
        <dt>{t.deliveries.created}</dt>
        <dd>{d.createdAt}</dd>
        {d.nextAttemptAt ? (
          <>
            <dt>{t.deliveries.nextAttempt}</dt>
            <dd>{d.nextAttemptAt}</dd>
          </>
        ) : null}
        {d.lastError ? (
          <>
            <dt>{t.deliveries.lastError}</dt>
            <dd>
              <code>{d.lastError}</code>
            </dd>
          </>
        ) : null}
      </dl>
      {replayable ? (
        <div class="actions">
          <ActionButton
            action={`/portal/deliveries/${d.id}/replay`}
            label={t.deliveries.replay}
            csrf={viewer.csrf}
          />
        </div>
      ) : null}
      <h2>{t.deliveries.attempts}</h2>
      {d.attempts.length === 0 ? (
        <p>{t.deliveries.noAttempts}</p>
      ) : (
        <table class="attempts">
          <thead>
            <tr>
              <th scope="col">{t.deliveries.attempt}</th>
              <th scope="col">{t.deliveries.created}</th>
              <th scope="col">{t.deliveries.result}</th>
              <th scope="col">{t.deliveries.code}</th>
              <th scope="col">{t.deliveries.latency}</th>
              <th scope="col">{t.deliveries.response}</th>
            </tr>
          </thead>
          <tbody>
            {d.attempts.map((a) => (
              <tr>
                <td>
                  {a.round > 1 ? `${a.round}.` : ''}
                  {a.attempt} {a.kind !== 'attempt' ? <span class="muted">({a.kind})</span> : null}
                </td>
                <td>{a.startedAt}</td>
                <td>{a.httpStatus ?? '–'}</td>
                <td>{a.code ? <code>{a.code}</code> : a.kind === 'attempt' ? 'ok' : '–'}</td>
                <td>{`${a.latencyMs} ms`}</td>
                <td>
                  <pre class="snippet">{responseText(a.responseBody, a.responseBodyEncoding)}</pre>
                  {a.sent ? <pre class="snippet">{a.sent.body}</pre> : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>{t.deliveries.body}</h2>
      <pre class="body">{d.body ?? ''}</pre>
    </Page>
  );
};
