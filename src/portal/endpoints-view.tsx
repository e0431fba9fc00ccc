import type { FC } from 'hono/jsx';
import { PRESET_NAMES } from '../policy/policy.js';
import { recoveryOf } from '../policy/presets.js';
import type { AttemptRowJson, EndpointJson } from './api-types.js';
import { AttemptsChart } from './chart.js';
import { ActionButton, Csrf, Page, ProblemBox, type ProblemView, type Viewer } from './layout.js';
import { t } from './strings.js';

export interface EndpointForm {
  url?: string;
  description?: string;
  preset?: string;
  eventTypes?: string;
  policy?: string;
}

const Health: FC<{ e: EndpointJson }> = ({ e }) => (
  <span class={`status status-${e.health.status}`}>{e.health.status}</span>
);

const Banner: FC<{ e: EndpointJson }> = ({ e }) =>
  e.banner ? (
    <p class="banner" role="note">
      <strong>{t.endpoints.banner}:</strong> {e.banner.message ?? e.banner.reason}{' '}
      <code>{e.banner.reason}</code>
    </p>
  ) : null;

export const EndpointCard: FC<{ e: EndpointJson; heading?: boolean }> = ({ e, heading = true }) => (
  <article class="card" aria-labelledby={`ep-${e.endpointId}`}>
    {heading ? (
      <h2 id={`ep-${e.endpointId}`}>
        <a href={`/portal/endpoints/${e.endpointId}`}>{e.config.url}</a>
      </h2>
    ) : (
      <h2 id={`ep-${e.endpointId}`}>{e.config.url}</h2>
    )}
    <dl>
      <dt>{t.endpoints.preset}</dt>
      <dd>{e.config.preset}</dd>
      <dt>{t.endpoints.eventTypes}</dt>
      <dd>{e.config.eventTypes?.length ? e.config.eventTypes.join(', ') : t.endpoints.allEvents}</dd>
      <dt>{t.endpoints.health}</dt>
      <dd>
        <Health e={e} />
      </dd>
    </dl>
    {e.config.description ? <p>{e.config.description}</p> : null}
    <Banner e={e} />
    <p class="muted">
      <code>{e.endpointId}</code>
    </p>
  </article>
);

export const EndpointsPage: FC<{ viewer: Viewer; endpoints: EndpointJson[]; notice?: string }> = (p) => (
  <Page title={t.endpoints.title} viewer={p.viewer} notice={p.notice}>
    <p>
      <a class="button" href="/portal/endpoints/new">
        {t.endpoints.create}
      </a>
    </p>
    {p.endpoints.length === 0 ? <p>{t.endpoints.none}</p> : null}
    <div class="cards">
      {p.endpoints.map((e) => (
        <EndpointCard e={e} />
      ))}
    </div>
  </Page>
);

const Field: FC<{
  id: string;
  label: string;
  hint?: string;
  value?: string;
  required?: boolean;
  type?: string;
}> = (p) => (
  <div class="field">
    <label for={p.id}>{p.label}</label>
    <input
      id={p.id}
      name={p.id}
      type={p.type ?? 'text'}
      value={p.value ?? ''}
      required={p.required}
      aria-describedby={p.hint ? `${p.id}-hint` : undefined}
    />
    {p.hint ? (
      <p class="hint" id={`${p.id}-hint`}>
        {p.hint}
      </p>
    ) : null}
  </div>
);

const PolicyField: FC<{ value?: string }> = ({ value }) => (
  <div class="field">
    <label for="policy">{t.endpoints.policy}</label>
    <textarea id="policy" name="policy" rows={3} aria-describedby="policy-hint">
      {value ?? ''}
    </textarea>
    <p class="hint" id="policy-hint">
      {t.endpoints.policyHint}
    </p>
  </div>
);

export const NewEndpointPage: FC<{ viewer: Viewer; form: EndpointForm; problem?: ProblemView }> = (p) => (
  <Page title={t.endpoints.createTitle} viewer={p.viewer}>
    <ProblemBox problem={p.problem} />
    <form method="post" action="/portal/endpoints">
      <Csrf token={p.viewer.csrf} />
      <Field
        id="url"
        label={t.endpoints.url}
        hint={t.endpoints.urlHint}
        value={p.form.url}
        required
        type="url"
      />
      <div class="field">
        <label for="preset">{t.endpoints.preset}</label>
        <select id="preset" name="preset">
          {PRESET_NAMES.map((n) => (
            <option value={n} selected={p.form.preset === n}>
              {n}
            </option>
          ))}
        </select>
      </div>
      <Field
        id="eventTypes"
        label={t.endpoints.eventTypes}
        hint={t.endpoints.eventTypesHint}
        value={p.form.eventTypes}
      />
      <Field id="description" label={t.endpoints.description} value={p.form.description} />
      <PolicyField value={p.form.policy} />
      <button type="submit">{t.endpoints.create}</button>
    </form>
  </Page>
);

export const SecretOnce: FC<{ secret: string; text: string }> = ({ secret, text }) => (
  <div class="secret" role="status">
    <p>{text}</p>
    <p>
      <code id="secret-value">{secret}</code>{' '}
      <button type="button" data-copy="secret-value">
        {t.endpoints.copy}
      </button>
    </p>
  </div>
);

export interface EndpointPageProps {
  viewer: Viewer;
  e: EndpointJson;
  attempts: AttemptRowJson[];
  now: number;
  notice?: string;
  problem?: ProblemView;
  secret?: { value: string; text: string };
  form?: EndpointForm;
}

export const EndpointPage: FC<EndpointPageProps> = (p) => {
  const { e, viewer } = p;
  const base = `/portal/endpoints/${e.endpointId}`;
  const form: EndpointForm = p.form ?? {
    url: e.config.url,
    eventTypes: e.config.eventTypes?.join(', ') ?? '',
    policy: e.config.policy ? JSON.stringify(e.config.policy) : '',
  };
  const offer = recoveryOf(e.config.preset);
  // Resume also re-enables a disabled or suspended endpoint (the API's /resume does both).
  const stopped = ['paused', 'disabled', 'suspended'].includes(e.health.status);
  return (
    <Page title={e.config.url} viewer={viewer} notice={p.notice}>
      <ProblemBox problem={p.problem} />
      {p.secret ? <SecretOnce secret={p.secret.value} text={p.secret.text} /> : null}
      <EndpointCard e={e} heading={false} />
      <div class="actions">
        {stopped ? (
          <ActionButton
            action={`${base}/resume`}
            label={e.health.status === 'paused' ? t.endpoints.resume : t.endpoints.reenable}
            csrf={viewer.csrf}
          />
        ) : (
          <ActionButton action={`${base}/pause`} label={t.endpoints.pause} csrf={viewer.csrf} />
        )}
        <ActionButton action={`${base}/test`} label={t.endpoints.test} csrf={viewer.csrf} />
        <ActionButton action={`${base}/rotate-secret`} label={t.endpoints.rotate} csrf={viewer.csrf} />
        <a class="button" href={`/portal/deliveries?endpointId=${e.endpointId}`}>
          {t.endpoints.deliveries}
        </a>
      </div>
      <p class="hint">{t.endpoints.rotateHint}</p>

      <section aria-labelledby="chart-h">
        <h2 id="chart-h">{t.endpoints.attemptsChart}</h2>
        <AttemptsChart rows={p.attempts} now={p.now} />
      </section>

      <section aria-labelledby="edit-h">
        <h2 id="edit-h">{t.endpoints.edit}</h2>
        <form method="post" action={`${base}/edit`}>
          <Csrf token={viewer.csrf} />
          <Field id="url" label={t.endpoints.url} value={form.url} required type="url" />
          <Field
            id="eventTypes"
            label={t.endpoints.eventTypes}
            hint={t.endpoints.eventTypesHint}
            value={form.eventTypes}
          />
          <PolicyField value={form.policy} />
          <button type="submit">{t.endpoints.save}</button>
        </form>
      </section>

      {offer.windowReplay ? (
        <section aria-labelledby="window-h">
          <h2 id="window-h">{t.window.title}</h2>
          <p>{t.window.reach}</p>
          <form method="post" action={`${base}/replay-window`}>
            <Csrf token={viewer.csrf} />
            <Field id="since" label={t.window.since} type="datetime-local" />
            <Field id="until" label={t.window.until} type="datetime-local" />
            <button type="submit">{t.window.submit}</button>
          </form>
        </section>
      ) : null}
    </Page>
  );
};
