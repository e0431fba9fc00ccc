import { Hono, type Context } from 'hono';
import type { JSX } from 'hono/jsx/jsx-runtime';
import { serveAsset } from './assets.js';
import { t } from './strings.js';

const DOCS_ASSETS = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'docs.js']);

// Swagger UI sets inline styles on its elements; scripts stay 'self' only.
const DOCS_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; object-src 'none'; base-uri 'none'";
const HOME_CSP = "default-src 'self'; style-src 'self'; object-src 'none'; base-uri 'none'";

async function page(c: Context, el: JSX.Element, csp: string) {
  c.header('Content-Security-Policy', csp);
  c.header('X-Content-Type-Options', 'nosniff');
  return c.html(`<!doctype html>${await el.toString()}`);
}

/** Issue 18: `/docs` from Herald's own copy of swagger-ui-dist (no CDN), and `/` linking both. */
export function docsRouter() {
  const app = new Hono();
  app.get('/', (c) =>
    page(
      c,
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <link rel="icon" href="data:," />
          <title>{t.home.title}</title>
          <link rel="stylesheet" href="/portal/assets/portal.css" />
        </head>
        <body>
          <main class="home">
            <h1>{t.home.title}</h1>
            <p>{t.home.intro}</p>
            <ul>
              <li>
                <a href="/portal">{t.home.portal}</a>
              </li>
              <li>
                <a href="/docs">{t.home.docs}</a>
              </li>
              <li>
                <a href="/openapi.json">{t.home.openapi}</a>
              </li>
            </ul>
          </main>
        </body>
      </html>,
      HOME_CSP,
    ),
  );
  app.get('/docs', (c) =>
    page(
      c,
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <link rel="icon" href="data:," />
          <title>{t.home.docs}</title>
          <link rel="stylesheet" href="/docs/assets/swagger-ui.css" />
        </head>
        <body>
          <main id="ui" aria-label={t.home.docs}></main>
          <noscript>
            <a href="/openapi.json">{t.home.openapi}</a>
          </noscript>
          <script src="/docs/assets/swagger-ui-bundle.js"></script>
          <script src="/docs/assets/docs.js"></script>
        </body>
      </html>,
      DOCS_CSP,
    ),
  );
  app.get('/docs/assets/:file', (c) => {
    const file = c.req.param('file');
    return DOCS_ASSETS.has(file) ? serveAsset(c, file) : c.text('Not found', 404);
  });
  return app;
}
