import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { repoRoot } from './tempEngine.js';

/** Helpers the e2e tests share for driving and checking a page of the app. */

/** Chromium's own notices that are not the app's errors (software WebGL on a GPU-less machine). */
const BROWSER_NOISE = /WebGL|GPU stall|GroupMarkerNotSet|swiftshader|Automatic fallback to software/i;

export function appConsoleErrors(errors: readonly string[]): string[] {
  return errors.filter((e) => !BROWSER_NOISE.test(e));
}

/** Waits until no loading indicator is left on the page. */
export async function settled(page: Page, timeout = 30_000): Promise<void> {
  await page.waitForFunction(
    () => document.querySelectorAll('[data-testid="state-loading"], [aria-busy="true"]').length === 0,
    undefined,
    { timeout },
  );
}

const AXE_SOURCE = readFileSync(join(repoRoot, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

export interface AxeFinding {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/**
 * Serious and critical axe-core violations on the page as it is now. axe is evaluated through the
 * DevTools protocol: the app's CSP (rightly) refuses the inline <script> addScriptTag would add.
 */
export async function axeViolations(page: Page): Promise<AxeFinding[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run: (
            ctx: Document,
            opts: object,
          ) => Promise<{
            violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[];
          }>;
        };
      }
    ).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.map((n) => n.target.map(String).join(' ')),
    }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
