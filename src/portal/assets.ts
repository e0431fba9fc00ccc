import type { Context } from 'hono';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

const TYPES: Record<string, string> = {
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  png: 'image/png',
};

/** Files served as they are, by name only: a request cannot name any other file. */
const FILES: Record<string, () => string> = {
  'portal.css': () => join(here, 'assets', 'portal.css'),
  'portal.js': () => join(here, 'assets', 'portal.js'),
  'swagger-ui.css': () => join(dirname(require.resolve('swagger-ui-dist/package.json')), 'swagger-ui.css'),
  'swagger-ui-bundle.js': () =>
    join(dirname(require.resolve('swagger-ui-dist/package.json')), 'swagger-ui-bundle.js'),
  'docs.js': () => join(here, 'assets', 'docs.js'),
};

const cache = new Map<string, Buffer>();

/** Read once, then served from memory: the portal and /docs work with no network at all. */
export function serveAsset(c: Context, name: string) {
  // Own names only: a plain object would also answer `constructor` and the like.
  const locate = Object.hasOwn(FILES, name) ? FILES[name] : undefined;
  if (!locate) return c.text('Not found', 404);
  let bytes = cache.get(name);
  if (!bytes) {
    bytes = readFileSync(locate());
    cache.set(name, bytes);
  }
  const ext = name.slice(name.lastIndexOf('.') + 1);
  return c.body(new Uint8Array(bytes), 200, {
    'content-type': TYPES[ext] ?? 'application/octet-stream',
    'cache-control': 'public, max-age=3600',
  });
}
