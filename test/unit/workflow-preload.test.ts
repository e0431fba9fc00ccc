import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { WORKFLOW_PRELOAD_MODULES, buildWorkflowBundle } from '../../src/workflow-bundle.js';

const quiet = { info() {}, warn() {}, error() {}, debug() {}, trace() {}, log() {} };

/**
 * Module-level collections that preloading shares between workflows on purpose: a memo whose
 * answer depends only on its key cannot carry one workflow's state into another.
 */
const SHARED_MEMOS = new Set(['policy/status-grammar.ts:cache']);

interface Finding {
  module: string;
  what: string;
}

/** The value imports of one module (type-only imports and exports are erased by the build). */
function valueImports(file: string, sf: ts.SourceFile): string[] {
  const out: string[] = [];
  for (const st of sf.statements) {
    if (ts.isImportDeclaration(st) && !st.importClause?.isTypeOnly)
      out.push((st.moduleSpecifier as ts.StringLiteral).text);
    if (ts.isExportDeclaration(st) && st.moduleSpecifier && !st.isTypeOnly)
      out.push((st.moduleSpecifier as ts.StringLiteral).text);
  }
  return out.map((s) => (s.startsWith('.') ? resolve(dirname(file), s.replace(/\.js$/, '.ts')) : s));
}

/**
 * What a module keeps at its top level that a workflow could change for the next one: a
 * `let`, a collection the module changes, a RegExp with a `lastIndex` (`g` or `y`).
 */
function moduleState(rel: string, sf: ts.SourceFile): string[] {
  const found: string[] = [];
  const text = sf.getFullText();
  for (const st of sf.statements) {
    if (!ts.isVariableStatement(st)) continue;
    const flags = st.declarationList.flags;
    for (const d of st.declarationList.declarations) {
      const name = d.name.getText(sf);
      const init = d.initializer;
      if (!(flags & (ts.NodeFlags.Const | ts.NodeFlags.Using))) found.push(`let/var ${name}`);
      else if (init && ts.isNewExpression(init) && init.expression.getText(sf) === 'RegExp') {
        const regexFlags = init.arguments?.[1]?.getText(sf) ?? '';
        if (/[gy]/.test(regexFlags)) found.push(`regexp ${name}`);
      } else if (
        init &&
        ts.isNewExpression(init) &&
        new RegExp(`\\b${name}\\.(set|add|delete|clear)\\(`).test(text) &&
        !SHARED_MEMOS.has(`${rel}:${name}`)
      )
        found.push(`collection ${name}`);
      else if (init && ts.isRegularExpressionLiteral(init) && /\/[a-z]*[gy][a-z]*$/.test(init.text))
        found.push(`regexp ${name}`);
    }
  }
  return found;
}

/** Everything the preloaded modules bring into the shared module cache, and what is wrong with it. */
function audit(entries: string[]) {
  const src = resolve(new URL('../../src', import.meta.url).pathname);
  const seen = new Set<string>();
  const findings: Finding[] = [];
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const rel = file.slice(src.length + 1);
    const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
    for (const what of moduleState(rel, sf)) findings.push({ module: rel, what });
    for (const dep of valueImports(file, sf)) {
      if (dep.startsWith('/')) visit(dep);
      // The workflow API keeps each workflow's state; shared, one workflow would see another's.
      else if (dep.startsWith('@temporalio/workflow') || dep.startsWith('node:'))
        findings.push({ module: rel, what: `imports ${dep}` });
    }
  };
  entries.forEach(visit);
  return { modules: [...seen].map((f) => f.slice(src.length + 1)), findings };
}

// Issue 16: a preloaded module runs once per worker thread and is shared by every workflow
// on it (the reusable V8 context), so it must hold nothing one workflow could leave to another.
describe('workflow modules preloaded once per worker thread (issue 16)', () => {
  it('are pure rule modules: no workflow API, no module state beyond a keyed memo', () => {
    const { modules, findings } = audit(WORKFLOW_PRELOAD_MODULES);
    expect(modules).toContain('policy/presets.ts');
    expect(findings).toEqual([]);
  });

  it('the audit finds what preloading must not share', () => {
    const messages = resolve(new URL('../../src/shared/messages.ts', import.meta.url).pathname);
    const grammar = resolve(new URL('../../src/policy/status-grammar.ts', import.meta.url).pathname);
    expect(audit([messages]).findings).toContainEqual({
      module: 'shared/messages.ts',
      what: 'imports @temporalio/workflow',
    });
    SHARED_MEMOS.clear();
    try {
      expect(audit([grammar]).findings).toContainEqual({
        module: 'policy/status-grammar.ts',
        what: 'collection cache',
      });
    } finally {
      SHARED_MEMOS.add('policy/status-grammar.ts:cache');
    }
  });

  it('the prebuilt bundle preloads them', async () => {
    const code = await buildWorkflowBundle(quiet as never);
    const preload = /exports\.preloadModules = function preloadModules\(\) \{([^}]*)\}/.exec(code)?.[1] ?? '';
    expect(preload).toContain('src/policy/next-step.ts');
    expect(preload).toContain('src/health/engine.ts');
  }, 120_000);
});
