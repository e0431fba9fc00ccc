import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type Page, type Response } from 'playwright-core';
import { expect } from 'vitest';
import { ensureChromium } from '../../scripts/ensure-chromium.mjs';

const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** Gitignored; docs/portal/ holds one committed set. */
export const SCREENSHOTS = process.env.HERALD_PORTAL_SCREENSHOTS ?? join('.screenshots', 'portal');

/** Debian's chromium, headless, with nothing that would reach the network on its own. */
export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: ensureChromium(),
    headless: true,
    // Playwright gives each launch a fresh, temporary --user-data-dir of its own.
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

const LOOPBACK_URL = /^(https?|ws):\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?\//;

/**
 * Watches a page for what the portal must never do: break its CSP (a blocked inline script
 * or style shows up as a console error), throw, or load anything from off this machine.
 */
export function watch(page: Page) {
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('request', (r) => {
    const url = r.url();
    if (!LOOPBACK_URL.test(url) && !url.startsWith('data:') && !url.startsWith('about:'))
      problems.push(`off-machine request: ${url}`);
  });
  return problems;
}

/** The serious and critical axe-core findings on the page as it is now. */
export async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated by the DevTools protocol, which the page's CSP does not govern: the CSP under
  // test stays as strict as in production.
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: {
          run: (o: object) => Promise<{
            violations: Array<{ id: string; impact?: string; nodes: Array<{ target: unknown }> }>;
          }>;
        };
      }
    ).axe;
    const r = await axe.run({
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21aa', 'best-practice'] },
    });
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      targets: v.nodes.map((n) => JSON.stringify(n.target)),
    }));
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.targets.join(', ')}`);
}

/**
 * Every portal page the suite visits: the strict CSP header is there, the page works under
 * it (no console errors), axe finds nothing serious, and a screenshot is kept.
 */
export async function checkPage(page: Page, problems: string[], name: string, response?: Response | null) {
  if (response) {
    const csp = (await response.allHeaders())['content-security-policy'] ?? '';
    expect(csp, `${name}: CSP header`).toContain("default-src 'self'");
    expect(csp, `${name}: CSP header`).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
  }
  expect(await axeViolations(page), `${name}: axe`).toEqual([]);
  expect(problems.splice(0), `${name}: console and network`).toEqual([]);
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}
