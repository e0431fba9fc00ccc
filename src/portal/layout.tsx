import type { Child, FC, PropsWithChildren } from 'hono/jsx';
import { t } from './strings.js';

/** What every page needs to know about who is looking at it. */
export interface Viewer {
  role: 'tenant' | 'operator';
  tenantId?: string;
  csrf: string;
}

export interface ProblemView {
  title: string;
  detail?: string;
  code?: string;
  errors?: Array<{ path: string; message: string }>;
}

export const Csrf: FC<{ token: string }> = ({ token }) => <input type="hidden" name="_csrf" value={token} />;

/** A POST button in its own form, carrying the CSRF token. */
export const ActionButton: FC<{
  action: string;
  label: string;
  csrf: string;
  name?: string;
  value?: string;
}> = (p) => (
  <form method="post" action={p.action} class="inline">
    <Csrf token={p.csrf} />
    {p.name ? <input type="hidden" name={p.name} value={p.value ?? ''} /> : null}
    <button type="submit">{p.label}</button>
  </form>
);

export const Notice: FC<{ text?: string }> = ({ text }) =>
  text ? (
    <p class="notice" role="status">
      {text}
    </p>
  ) : null;

export const ProblemBox: FC<{ problem?: ProblemView }> = ({ problem }) =>
  problem ? (
    <div class="problem" role="alert">
      <p>
        <strong>{t.problem(problem.title)}</strong>
        {problem.code ? <code class="code">{problem.code}</code> : null}
      </p>
      {problem.detail ? <p>{problem.detail}</p> : null}
      {problem.errors && problem.errors.length > 1 ? (
        <ul>
          {problem.errors.map((e) => (
            <li>{t.fieldError(e.path, e.message)}</li>
          ))}
        </ul>
      ) : null}
    </div>
  ) : null;

const Nav: FC<{ viewer: Viewer }> = ({ viewer }) => (
  <nav aria-label={t.nav.label}>
    <ul>
      {viewer.role === 'tenant' ? (
        <>
          <li>
            <a href="/portal">{t.nav.endpoints}</a>
          </li>
          <li>
            <a href="/portal/deliveries">{t.nav.deliveries}</a>
          </li>
          <li>
            <a href="/portal/dead-letters">{t.nav.deadLetters}</a>
          </li>
          <li>
            <a href="/portal/replay">{t.nav.replay}</a>
          </li>
          <li>
            <a href="/portal/events">{t.nav.events}</a>
          </li>
          <li>
            <a href="/portal/sources">{t.nav.sources}</a>
          </li>
          <li>
            <a href="/portal/forwards">{t.nav.forwards}</a>
          </li>
        </>
      ) : (
        <li>
          <a href="/portal/operator">{t.nav.operator}</a>
        </li>
      )}
      <li>
        <a href="/docs">{t.nav.docs}</a>
      </li>
    </ul>
    <form method="post" action="/portal/sign-out" class="inline">
      <Csrf token={viewer.csrf} />
      <button type="submit">{t.nav.signOut}</button>
    </form>
  </nav>
);

export const Page: FC<PropsWithChildren<{ title: string; viewer?: Viewer; notice?: string }>> = (p) => (
  <>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${p.title} · ${t.portal}`}</title>
        <link rel="icon" href="data:," />
        <link rel="stylesheet" href="/portal/assets/portal.css" />
        <script type="module" src="/portal/assets/portal.js"></script>
      </head>
      <body>
        <a class="skip" href="#main">
          {t.skipToContent}
        </a>
        <header>
          <a class="brand" href="/portal">
            {t.portal}
          </a>
          {p.viewer ? <Nav viewer={p.viewer} /> : null}
        </header>
        <main id="main">
          <h1>{p.title}</h1>
          <Notice text={p.notice} />
          {p.children as Child}
        </main>
      </body>
    </html>
  </>
);

/** A page that explains a refusal, in place of any stack trace. */
export const MessagePage: FC<{
  title: string;
  body: string;
  viewer?: Viewer;
  link?: { href: string; label: string };
}> = (p) => (
  <Page title={p.title} viewer={p.viewer}>
    <p>{p.body}</p>
    {p.link ? (
      <p>
        <a href={p.link.href}>{p.link.label}</a>
      </p>
    ) : null}
  </Page>
);
