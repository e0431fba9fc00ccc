import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: this file sits one folder below it. */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Issue 15: Herald's layers, checked on every import (type-only ones too: a type pointing up
 * is still a dependency pointing up). Lower layers know nothing of the ones built on them,
 * so each can be tested and changed without the ones above.
 *
 * Each rule names a folder of src/ and either the only Herald folders it may import
 * (`allow`) or the ones it must not (`deny`). Paths are resolved from the importing file, so
 * `../api/x.js` and `../../api/x.js` are the same import wherever the file sits.
 */
const LAYERS = [
  {
    from: 'src/policy',
    allow: ['src/policy', 'src/shared'],
    why: 'policy/ holds pure rules: it imports only policy/ and shared/',
  },
  {
    from: 'src/health',
    allow: ['src/health', 'src/policy', 'src/shared'],
    why: 'health/ holds pure reducers: it imports only health/, policy/ and shared/',
  },
  { from: 'src/store', deny: ['src/core', 'src/api'], why: 'store/ sits under core/ and api/' },
  { from: 'src/core', deny: ['src/api'], why: 'core/ sits under api/' },
];

const inside = (path, folder) => path === folder || path.startsWith(folder + '/');
const toPosix = (p) => p.split(sep).join('/');

/** `endpoints.routes.ts` and `endpoints.handlers.ts` are one resource, `endpoints`. */
const resourceOf = (file) => file.slice(file.lastIndexOf('/') + 1).split('.')[0];

export const importBoundaries = {
  meta: {
    type: 'problem',
    docs: { description: "Herald's import boundaries between src/ folders (issue 15)" },
    schema: [],
  },
  create(context) {
    const root = ROOT;
    const file = toPosix(relative(root, context.filename));
    if (!inside(file, 'src')) return {};
    const layers = LAYERS.filter((l) => inside(file, l.from));

    function check(node, specifier) {
      if (typeof specifier !== 'string') return;
      const report = (message) => context.report({ node, message });
      if (/^@temporalio\/[^/]+\/lib(\/|$)/.test(specifier))
        return report(
          `Do not import Temporal SDK internals (${specifier}): they change without notice; use the package's public exports.`,
        );
      if (!specifier.startsWith('.')) return;
      const target = toPosix(relative(root, resolve(dirname(context.filename), specifier)));
      if (inside(target, 'scripts'))
        return report('src/ never imports scripts/: scripts are tooling, run beside Herald, not part of it.');
      for (const l of layers) {
        const ok = l.allow ? l.allow.some((f) => inside(target, f)) : !l.deny.some((f) => inside(target, f));
        if (!ok) return report(`${l.why}; this imports ${target}.`);
      }
      // A route file serves one resource; what two resources share lives outside routes/.
      if (
        inside(file, 'src/api/routes') &&
        inside(target, 'src/api/routes') &&
        resourceOf(target) !== resourceOf(file)
      )
        return report(
          `Route files never import other route files (${target}): move what they share out of src/api/routes/.`,
        );
    }

    return {
      ImportDeclaration: (n) => check(n, n.source.value),
      ExportNamedDeclaration: (n) => n.source && check(n, n.source.value),
      ExportAllDeclaration: (n) => check(n, n.source.value),
      ImportExpression: (n) => n.source.type === 'Literal' && check(n, n.source.value),
    };
  },
};
