import { Hono, type Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { JSX } from 'hono/jsx/jsx-runtime';
import { randomBytes } from 'node:crypto';
import type { Config } from '../config.js';
import { tenantAuth, type TenantEnv } from '../api/auth.js';
import type { Directory } from '../store/directory.js';
import { parseApiKey, sameSecret } from '../api/keys.js';
import { ProblemError } from '../api/problem.js';
import { callApi, qs, type ApiFetch, type ApiResult } from './api-call.js';
import type {
  AttemptRowJson,
  DeadLetterJson,
  DeliveryJson,
  DeliveryRowJson,
  EndpointJson,
  PreviewJson,
} from './api-types.js';
import { serveAsset } from './assets.js';
import { DeliveriesPage, DeliveryPage, type DeliveryFilters } from './deliveries-view.js';
import {
  EndpointPage,
  EndpointsPage,
  NewEndpointPage,
  type EndpointForm,
  type EndpointPageProps,
} from './endpoints-view.js';
import { MessagePage, type ProblemView, type Viewer } from './layout.js';
import type { UsedLinks } from './links-route.js';
import {
  EventPage,
  EventsPage,
  ForwardsPage,
  OperatorPage,
  SignInPage,
  SourcesPage,
  type EventJson,
  type ForwardDeadLetterJson,
  type SourceJson,
  type TenantJson,
} from './misc-view.js';
import { DeadLettersPage, ReplayFailuresPage } from './recovery-view.js';
import { portalHeaders } from './security-headers.js';
import { t } from './strings.js';
import type { PortalTokens, SessionClaims } from './tokens.js';
import { isTemporalOutage } from '../temporal/outage.js';

export interface PortalDeps {
  config: Config;
  directory: Directory;
  /** Absent without HERALD_PORTAL_SECRET: the portal is closed. */
  tokens?: PortalTokens;
  links: UsedLinks;
  /** Herald's own API, in process. */
  api: ApiFetch;
}

type Form = Record<string, string | string[]>;
type PortalEnv = { Variables: { viewer: Viewer; bearer: string; form: Form } };
type C = Context<PortalEnv>;

const SESSION_COOKIE = 'herald_portal';
const PRE_COOKIE = 'herald_portal_pre';
const KEY_SESSION_MS = 8 * 3_600_000;
const LINK_SESSION_MS = 2 * 3_600_000;
const LOOPBACK = /^(127(\.\d+){3}|localhost|\[::1\])$/i;

/** Path segments that reach the API as they are: never `.`/`..`, never a slash. */
const SEGMENT = /^(?!\.\.?$)[A-Za-z0-9_.:-]{1,128}$/;

async function render(c: Context, el: JSX.Element, status = 200) {
  return c.html(`<!doctype html>${await el.toString()}`, status as 200);
}

/** Issue 18: the tenant portal, server-rendered; every action is one call to the API. */
export function portalRouter(deps: PortalDeps) {
  const { config, tokens } = deps;
  const app = new Hono<PortalEnv>();
  app.use('*', portalHeaders(config));
  app.get('/assets/:file', (c) => serveAsset(c, c.req.param('file')));
  if (!tokens) {
    app.all('*', (c) => render(c, <MessagePage title={t.closed.title} body={t.closed.body} />, 503));
    return app;
  }

  const cookieOptions = (c: Context, maxAgeMs: number) => ({
    httpOnly: true,
    sameSite: 'Strict' as const,
    path: '/portal',
    // Plain http on loopback in development; anything else is reached over TLS.
    secure: !LOOPBACK.test(new URL(c.req.url).hostname),
    maxAge: Math.floor(maxAgeMs / 1000),
  });

  // The sign-in form has no session yet: its CSRF token is bound to a random cookie instead.
  const preSession = (c: Context) => {
    let pre = getCookie(c, PRE_COOKIE);
    if (!pre || pre.length < 16) {
      pre = randomBytes(16).toString('base64url');
      setCookie(c, PRE_COOKIE, pre, cookieOptions(c, 3_600_000));
    }
    return pre;
  };

  const startSession = (c: Context, claims: Omit<SessionClaims, 'sid'>) => {
    const { token } = tokens.issueSession(claims);
    setCookie(c, SESSION_COOKIE, token, cookieOptions(c, claims.exp - Date.now()));
    deleteCookie(c, PRE_COOKIE, { path: '/portal' });
    return c.redirect(claims.role === 'operator' ? '/portal/operator' : '/portal', 303);
  };

  const csrfRefused = (c: Context) => render(c, <MessagePage title={t.csrf.title} body={t.csrf.body} />, 403);

  const readForm = async (c: Context): Promise<Form> => {
    const raw = await c.req.parseBody({ all: true });
    const out: Form = {};
    for (const [k, v] of Object.entries(raw))
      out[k] = Array.isArray(v)
        ? v.filter((x): x is string => typeof x === 'string')
        : typeof v === 'string'
          ? v
          : '';
    return out;
  };
  const one = (f: Form, k: string) => {
    const v = f[k];
    return (Array.isArray(v) ? v[0] : v)?.trim() ?? '';
  };

  // The key is checked by the API's own authentication, never by a copy of it.
  const verifier = new Hono<TenantEnv>()
    .use('*', tenantAuth(deps.directory))
    .get('/', (c) => c.json({ tenantId: c.get('tenantId') }))
    // A Temporal that cannot say whether the key is valid is an outage page, not "refused".
    .onError((err, c) =>
      c.json({}, err instanceof ProblemError ? err.status : isTemporalOutage(err) ? 503 : 500),
    );

  app.get('/sign-in', (c) => {
    const notice = c.req.query('notice');
    const text =
      notice === 'signed-out' ? t.signIn.signedOut : notice === 'ended' ? t.signIn.ended : undefined;
    return render(c, <SignInPage csrf={tokens.csrfFor(`pre.${preSession(c)}`)} notice={text} />);
  });

  app.post('/sign-in', async (c) => {
    const form = await readForm(c);
    const pre = getCookie(c, PRE_COOKIE);
    if (!pre || !tokens.checkCsrf(`pre.${pre}`, form._csrf)) return csrfRefused(c);
    const key = one(form, 'key');
    const refused = () =>
      render(
        c,
        <SignInPage
          csrf={tokens.csrfFor(`pre.${pre}`)}
          problem={{ title: t.signIn.refused, code: 'unauthorized' }}
        />,
        401,
      );
    const parsed = parseApiKey(key);
    if (parsed) {
      const res = await verifier.request('/', { headers: { authorization: `Bearer ${key}` } });
      if (res.status >= 500) return unavailable(c);
      if (!res.ok) return refused();
      return startSession(c, {
        role: 'tenant',
        tenantId: parsed.tenantId,
        keyId: parsed.keyId,
        exp: Date.now() + KEY_SESSION_MS,
      });
    }
    if (config.HERALD_OPERATOR_KEY && key && sameSecret(key, config.HERALD_OPERATOR_KEY))
      return startSession(c, { role: 'operator', exp: Date.now() + KEY_SESSION_MS });
    return refused();
  });

  app.get('/link', (c) => {
    const r = tokens.readLink(c.req.query('token') ?? '');
    if (!r.ok)
      return r.reason === 'expired'
        ? render(c, <MessagePage title={t.link.expiredTitle} body={t.link.expired} />, 410)
        : render(c, <MessagePage title={t.link.forgedTitle} body={t.link.forged} />, 400);
    if (!deps.links.claim(r.claims.nonce))
      return render(c, <MessagePage title={t.link.usedTitle} body={t.link.used} />, 410);
    return startSession(c, {
      role: 'tenant',
      tenantId: r.claims.tenantId,
      keyId: r.claims.keyId,
      exp: Math.min(Date.now() + LINK_SESSION_MS, Date.now() + KEY_SESSION_MS),
    });
  });

  // Everything below needs a session, and every POST its CSRF token.
  app.use('*', async (c, next) => {
    const s = tokens.readSession(getCookie(c, SESSION_COOKIE));
    if (!s) {
      if (c.req.method === 'GET') return c.redirect('/portal/sign-in', 303);
      return csrfRefused(c);
    }
    if (c.req.method === 'POST') {
      const form = await readForm(c);
      if (!tokens.checkCsrf(s.sid, form._csrf)) return csrfRefused(c);
      c.set('form', form);
    }
    c.set('viewer', { role: s.role, tenantId: s.tenantId, csrf: tokens.csrfFor(s.sid) });
    c.set(
      'bearer',
      s.role === 'operator' ? (config.HERALD_OPERATOR_KEY ?? '') : getCookie(c, SESSION_COOKIE)!,
    );
    await next();
  });

  app.post('/sign-out', (c) => {
    deleteCookie(c, SESSION_COOKIE, { path: '/portal' });
    return c.redirect('/portal/sign-in?notice=signed-out', 303);
  });

  const unavailable = (c: Context) =>
    render(c, <MessagePage title={t.unavailable.title} body={t.unavailable.body} />, 503);
  const notFound = (c: C) =>
    render(
      c,
      <MessagePage
        title={t.notFound.title}
        body={t.notFound.body}
        viewer={c.get('viewer')}
        link={{ href: '/portal', label: t.back }}
      />,
      404,
    );

  const api = <T,>(c: C, method: string, path: string, body?: unknown) =>
    callApi<T>(deps.api, c.get('bearer'), method, path, body);

  /** The refusals no page can show in place: a lost session, a missing resource, an outage. */
  const fatal = (c: C, r: ApiResult<unknown>) => {
    if (r.ok) return undefined;
    if (r.status === 401) {
      deleteCookie(c, SESSION_COOKIE, { path: '/portal' });
      return c.redirect('/portal/sign-in?notice=ended', 303);
    }
    if (r.status === 404) return notFound(c);
    if (r.status === 503) return unavailable(c);
    return undefined;
  };
  const problemOf = (r: ApiResult<unknown>): ProblemView | undefined => (r.ok ? undefined : r.problem);

  const tenantOnly = async (c: C, next: () => Promise<void>) => {
    if (c.get('viewer').role !== 'tenant') return c.redirect('/portal/operator', 303);
    await next();
  };
  const idOf = (c: C) => c.req.param('id') ?? '';
  const checkId = async (c: C, next: () => Promise<void>) => {
    if (!SEGMENT.test(idOf(c))) return notFound(c);
    await next();
  };
  for (const p of [
    '/',
    '/endpoints/*',
    '/deliveries/*',
    '/deliveries',
    '/dead-letters/*',
    '/dead-letters',
    '/replay',
    '/events',
    '/events/*',
    '/sources',
    '/forwards',
    '/forwards/*',
  ])
    app.use(p, tenantOnly);

  // ---------------------------------------------------------------- endpoints
  const NOTICES: Record<string, string> = {
    paused: t.endpoints.paused,
    resumed: t.endpoints.resumed,
  };

  app.get('/', async (c) => {
    const r = await api<{ data: EndpointJson[] }>(c, 'GET', '/v1/endpoints');
    if (!r.ok)
      return (
        fatal(c, r) ??
        render(
          c,
          <MessagePage title={r.problem.title} body={r.problem.detail ?? ''} viewer={c.get('viewer')} />,
          r.status,
        )
      );
    return render(c, <EndpointsPage viewer={c.get('viewer')} endpoints={r.data.data} />);
  });

  app.get('/endpoints/new', (c) => render(c, <NewEndpointPage viewer={c.get('viewer')} form={{}} />));

  /** The policy field is JSON text; anything else is said before the API is asked. */
  const policyOf = (text: string): { ok: true; value?: unknown } | { ok: false; problem: ProblemView } => {
    if (!text) return { ok: true };
    try {
      return { ok: true, value: JSON.parse(text) };
    } catch {
      return {
        ok: false,
        problem: {
          title: 'The request body is not valid',
          detail: 'policy: not valid JSON',
          code: 'malformed_json',
        },
      };
    }
  };
  const typesOf = (text: string) =>
    text
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);

  app.post('/endpoints', async (c) => {
    const f = c.get('form');
    const form: EndpointForm = {
      url: one(f, 'url'),
      preset: one(f, 'preset'),
      eventTypes: one(f, 'eventTypes'),
      description: one(f, 'description'),
      policy: one(f, 'policy'),
    };
    const policy = policyOf(form.policy!);
    if (!policy.ok)
      return render(
        c,
        <NewEndpointPage viewer={c.get('viewer')} form={form} problem={policy.problem} />,
        400,
      );
    const types = typesOf(form.eventTypes!);
    const r = await api<{ endpoint: EndpointJson; secret: string }>(c, 'POST', '/v1/endpoints', {
      url: form.url,
      ...(form.preset ? { preset: form.preset } : {}),
      ...(types.length ? { eventTypes: types } : {}),
      ...(form.description ? { description: form.description } : {}),
      ...(policy.value !== undefined ? { policy: policy.value } : {}),
    });
    if (!r.ok)
      return (
        fatal(c, r) ??
        render(c, <NewEndpointPage viewer={c.get('viewer')} form={form} problem={r.problem} />, r.status)
      );
    return endpointPage(c, r.data.endpoint.endpointId, {
      notice: t.endpoints.created,
      secret: { value: r.data.secret, text: t.endpoints.secret },
    });
  });

  const endpointPage = async (
    c: C,
    id: string,
    extra: Partial<Omit<EndpointPageProps, 'viewer' | 'e' | 'attempts' | 'now'>> = {},
    status = 200,
  ) => {
    const [e, attempts] = await Promise.all([
      api<EndpointJson>(c, 'GET', `/v1/endpoints/${id}`),
      api<{ data: AttemptRowJson[] }>(c, 'GET', `/v1/endpoints/${id}/attempts?limit=200`),
    ]);
    if (!e.ok) return fatal(c, e) ?? notFound(c);
    return render(
      c,
      <EndpointPage
        viewer={c.get('viewer')}
        e={e.data}
        attempts={attempts.ok ? attempts.data.data : []}
        now={Date.now()}
        {...extra}
      />,
      status,
    );
  };

  app.get('/endpoints/:id', checkId, (c) =>
    endpointPage(c, idOf(c), { notice: NOTICES[c.req.query('notice') ?? ''] }),
  );

  for (const action of ['pause', 'resume'] as const)
    app.post(`/endpoints/:id/${action}`, checkId, async (c) => {
      const id = idOf(c);
      const r = await api(c, 'POST', `/v1/endpoints/${id}/${action}`);
      if (!r.ok) return fatal(c, r) ?? endpointPage(c, id, { problem: r.problem }, r.status);
      return c.redirect(`/portal/endpoints/${id}?notice=${action === 'pause' ? 'paused' : 'resumed'}`, 303);
    });

  app.post('/endpoints/:id/test', checkId, async (c) => {
    const id = idOf(c);
    const r = await api<{ ok: boolean; httpStatus?: number; code?: string }>(
      c,
      'POST',
      `/v1/endpoints/${id}/test`,
    );
    if (!r.ok) return fatal(c, r) ?? endpointPage(c, id, { problem: r.problem }, r.status);
    return endpointPage(c, id, {
      notice: t.endpoints.testResult(r.data.ok, String(r.data.httpStatus ?? r.data.code ?? '')),
    });
  });

  app.post('/endpoints/:id/rotate-secret', checkId, async (c) => {
    const id = idOf(c);
    const r = await api<{ secret: string }>(c, 'POST', `/v1/endpoints/${id}/rotate-secret`);
    if (!r.ok) return fatal(c, r) ?? endpointPage(c, id, { problem: r.problem }, r.status);
    return endpointPage(c, id, { secret: { value: r.data.secret, text: t.endpoints.newSecret } });
  });

  app.post('/endpoints/:id/edit', checkId, async (c) => {
    const id = idOf(c);
    const f = c.get('form');
    const form: EndpointForm = {
      url: one(f, 'url'),
      eventTypes: one(f, 'eventTypes'),
      policy: one(f, 'policy'),
    };
    const policy = policyOf(form.policy!);
    if (!policy.ok) return endpointPage(c, id, { problem: policy.problem, form }, 400);
    const r = await api(c, 'PATCH', `/v1/endpoints/${id}`, {
      url: form.url,
      eventTypes: typesOf(form.eventTypes!),
      ...(policy.value !== undefined ? { policy: policy.value } : {}),
    });
    if (!r.ok) return fatal(c, r) ?? endpointPage(c, id, { problem: r.problem, form }, r.status);
    return endpointPage(c, id, { notice: t.endpoints.saved });
  });

  /** datetime-local has no zone; the form says UTC. */
  const utc = (v: string) => (v ? `${v.length === 16 ? `${v}:00` : v}Z` : undefined);

  app.post('/endpoints/:id/replay-window', checkId, async (c) => {
    const id = idOf(c);
    const f = c.get('form');
    const since = utc(one(f, 'since'));
    const until = utc(one(f, 'until'));
    const r = await api(c, 'POST', '/v1/replay/window', {
      endpointId: id,
      ...(since ? { since } : {}),
      ...(until ? { until } : {}),
    });
    if (!r.ok) return fatal(c, r) ?? endpointPage(c, id, { problem: r.problem }, r.status);
    return endpointPage(c, id, { notice: t.window.accepted });
  });

  // ---------------------------------------------------------------- deliveries
  const PAGE = 25;
  app.get('/deliveries', async (c) => {
    const filters: DeliveryFilters = {
      endpointId: c.req.query('endpointId') || undefined,
      status: c.req.query('status') || undefined,
      eventType: c.req.query('eventType') || undefined,
      until: c.req.query('until') || undefined,
    };
    const [rows, endpoints] = await Promise.all([
      api<{ data: DeliveryRowJson[] }>(c, 'GET', `/v1/deliveries${qs({ ...filters, limit: PAGE })}`),
      api<{ data: EndpointJson[] }>(c, 'GET', '/v1/endpoints'),
    ]);
    if (!rows.ok && rows.status !== 400) return fatal(c, rows) ?? unavailable(c);
    return render(
      c,
      <DeliveriesPage
        viewer={c.get('viewer')}
        rows={rows.ok ? rows.data.data : []}
        endpoints={endpoints.ok ? endpoints.data.data : []}
        filters={filters}
        pageSize={PAGE}
        problem={problemOf(rows)}
      />,
      rows.ok ? 200 : 400,
    );
  });

  const deliveryPage = async (
    c: C,
    id: string,
    extra: { notice?: string; problem?: ProblemView } = {},
    status = 200,
  ) => {
    const d = await api<DeliveryJson>(c, 'GET', `/v1/deliveries/${id}`);
    if (!d.ok) return fatal(c, d) ?? notFound(c);
    const e = await api<EndpointJson>(c, 'GET', `/v1/endpoints/${d.data.endpointId}`);
    return render(
      c,
      <DeliveryPage
        viewer={c.get('viewer')}
        d={d.data}
        preset={e.ok ? e.data.config.preset : undefined}
        {...extra}
      />,
      status,
    );
  };

  app.get('/deliveries/:id', checkId, (c) => deliveryPage(c, idOf(c)));

  app.post('/deliveries/:id/replay', checkId, async (c) => {
    const id = idOf(c);
    const r = await api(c, 'POST', `/v1/replay/deliveries/${id}`);
    if (!r.ok) return fatal(c, r) ?? deliveryPage(c, id, { problem: r.problem }, r.status);
    return deliveryPage(c, id, { notice: t.deliveries.replayed });
  });

  // ---------------------------------------------------------------- dead letters
  const deadLettersPage = async (
    c: C,
    extra: { notice?: string; problem?: ProblemView } = {},
    status = 200,
  ) => {
    const r = await api<{ data: DeadLetterJson[] }>(c, 'GET', '/v1/dead-letters?limit=100');
    if (!r.ok) return fatal(c, r) ?? unavailable(c);
    return render(c, <DeadLettersPage viewer={c.get('viewer')} rows={r.data.data} {...extra} />, status);
  };
  app.get('/dead-letters', (c) => deadLettersPage(c));

  app.post('/dead-letters/retry', async (c) => {
    const raw = c.get('form').ids;
    const ids = (Array.isArray(raw) ? raw : raw ? [raw] : []).filter((id) => SEGMENT.test(id));
    if (ids.length === 0) return deadLettersPage(c);
    const r = await api<{ retried: string[]; failed: Array<{ id: string; code: string }> }>(
      c,
      'POST',
      '/v1/dead-letters/retry',
      { ids },
    );
    if (!r.ok) return fatal(c, r) ?? deadLettersPage(c, { problem: r.problem }, r.status);
    const notice = [
      t.deadLetters.retried(r.data.retried.length),
      ...r.data.failed.map((f) => t.deadLetters.notRetried(f.id, f.code)),
    ].join(' ');
    return deadLettersPage(c, { notice });
  });

  app.post('/dead-letters/:id/retry', checkId, async (c) => {
    const r = await api(c, 'POST', `/v1/dead-letters/${idOf(c)}/retry`);
    if (!r.ok) return fatal(c, r) ?? deadLettersPage(c, { problem: r.problem }, r.status);
    return deadLettersPage(c, { notice: t.deadLetters.retried(1) });
  });

  // ---------------------------------------------------------------- replay failures
  const replayPage = async (c: C, extra: { notice?: string; problem?: ProblemView } = {}, status = 200) => {
    const endpointId = c.req.query('endpointId') || undefined;
    if (endpointId && !SEGMENT.test(endpointId)) return notFound(c);
    const r = await api<PreviewJson>(c, 'GET', `/v1/replay/failures/preview${qs({ endpointId })}`);
    if (!r.ok)
      return (
        fatal(c, r) ??
        render(
          c,
          <MessagePage title={r.problem.title} body={r.problem.detail ?? ''} viewer={c.get('viewer')} />,
          r.status,
        )
      );
    return render(
      c,
      <ReplayFailuresPage viewer={c.get('viewer')} preview={r.data} endpointId={endpointId} {...extra} />,
      status,
    );
  };
  app.get('/replay', (c) => replayPage(c));
  app.post('/replay', async (c) => {
    const endpointId = c.req.query('endpointId') || undefined;
    if (endpointId && !SEGMENT.test(endpointId)) return notFound(c);
    const r = await api<{ replayed: string[] }>(c, 'POST', `/v1/replay/failures${qs({ endpointId })}`);
    if (!r.ok) return fatal(c, r) ?? replayPage(c, { problem: r.problem }, r.status);
    return replayPage(c, { notice: t.replay.done(r.data.replayed.length) });
  });

  // ---------------------------------------------------------------- events, sources, forwards
  app.get('/events', async (c) => {
    const type = c.req.query('type') || undefined;
    const r = await api<{ data: EventJson[] }>(c, 'GET', `/v1/events${qs({ type, limit: 50 })}`);
    if (!r.ok && r.status !== 400) return fatal(c, r) ?? unavailable(c);
    return render(
      c,
      <EventsPage
        viewer={c.get('viewer')}
        rows={r.ok ? r.data.data : []}
        type={type}
        problem={problemOf(r)}
      />,
      r.ok ? 200 : 400,
    );
  });
  app.get('/events/:id', checkId, async (c) => {
    const r = await api<EventJson>(c, 'GET', `/v1/events/${encodeURIComponent(idOf(c))}`);
    if (!r.ok) return fatal(c, r) ?? notFound(c);
    return render(c, <EventPage viewer={c.get('viewer')} e={r.data} />);
  });
  app.get('/sources', async (c) => {
    const r = await api<{ data: SourceJson[] }>(c, 'GET', '/v1/sources');
    if (!r.ok) return fatal(c, r) ?? unavailable(c);
    return render(c, <SourcesPage viewer={c.get('viewer')} rows={r.data.data} />);
  });
  const forwardsPage = async (c: C, extra: { notice?: string; problem?: ProblemView } = {}, status = 200) => {
    const r = await api<{ data: ForwardDeadLetterJson[] }>(c, 'GET', '/v1/forwards/dead-letters');
    if (!r.ok) return fatal(c, r) ?? unavailable(c);
    return render(c, <ForwardsPage viewer={c.get('viewer')} rows={r.data.data} {...extra} />, status);
  };
  app.get('/forwards', (c) => forwardsPage(c));
  app.post('/forwards/:id/retry', checkId, async (c) => {
    const r = await api(c, 'POST', `/v1/forwards/dead-letters/${idOf(c)}/retry`);
    if (!r.ok) return fatal(c, r) ?? forwardsPage(c, { problem: r.problem }, r.status);
    return forwardsPage(c, { notice: t.forwards.retried });
  });

  // ---------------------------------------------------------------- operator
  const operatorPage = async (c: C, tenantId: string | undefined, extra: { notice?: string } = {}) => {
    if (c.get('viewer').role !== 'operator') return notFound(c);
    if (!tenantId) return render(c, <OperatorPage viewer={c.get('viewer')} />);
    if (!/^tn_[A-Za-z0-9]+$/.test(tenantId))
      return render(
        c,
        <OperatorPage
          viewer={c.get('viewer')}
          lookup={tenantId}
          problem={{ title: t.notFound.title, code: 'tenant_not_found' }}
        />,
        404,
      );
    const r = await api<TenantJson>(c, 'GET', `/v1/admin/tenants/${tenantId}`);
    if (!r.ok && r.status === 503) return unavailable(c);
    return render(
      c,
      <OperatorPage
        viewer={c.get('viewer')}
        lookup={tenantId}
        tenant={r.ok ? r.data : undefined}
        problem={problemOf(r)}
        {...extra}
      />,
      r.ok ? 200 : r.status,
    );
  };
  app.get('/operator', (c) => operatorPage(c, c.req.query('tenant') || undefined));
  app.post('/operator/:tenantId/subscription', async (c) => {
    const tenantId = c.req.param('tenantId') ?? '';
    if (c.get('viewer').role !== 'operator' || !/^tn_[A-Za-z0-9]+$/.test(tenantId)) return notFound(c);
    const r = await api(c, 'PUT', `/v1/admin/tenants/${tenantId}/subscription`, {
      active: one(c.get('form'), 'active') === 'true',
    });
    if (!r.ok && r.status === 503) return unavailable(c);
    return operatorPage(c, tenantId, r.ok ? { notice: t.operator.changed } : {});
  });

  app.all('*', (c) => notFound(c));
  return app;
}
