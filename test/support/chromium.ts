import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { repoRoot } from './tempEngine.js';

/** Debian's chromium package; Playwright's own browser download is never used. */
export const CHROMIUM = process.env.POLYHOP_CHROMIUM ?? '/usr/bin/chromium';

export const ARTIFACTS = join(repoRoot, 'test-artifacts');

/** How WebGL is drawn without a GPU: `--disable-gpu` (the default) or ANGLE over SwiftShader. */
export const GL_FLAGS = {
  'disable-gpu': ['--disable-gpu'],
  swiftshader: ['--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
} as const;
export type GlMode = keyof typeof GL_FLAGS;

export async function launchChromium(options: { gl?: GlMode } = {}): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install -y chromium (see .ci/run)`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', ...GL_FLAGS[options.gl ?? 'disable-gpu'], '--disable-quic', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/**
 * A page that records every request leaving 127.0.0.1 (the app must make none) and every
 * console error.
 */
export async function openApp(
  browser: Browser,
  authUrl: string,
  options: { colorScheme?: 'light' | 'dark'; /** Script run in the page before the app's own (a test double). */ initScript?: string } = {},
): Promise<{ context: BrowserContext; page: Page; externalRequests: string[]; consoleErrors: string[] }> {
  const context = await browser.newContext({ colorScheme: options.colorScheme ?? 'light', viewport: { width: 1280, height: 860 } });
  if (options.initScript) await context.addInitScript(options.initScript);
  const page = await context.newPage();
  const externalRequests: string[] = [];
  const consoleErrors: string[] = [];
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (!['127.0.0.1', 'localhost'].includes(url.hostname) && !['data:', 'blob:'].includes(url.protocol)) externalRequests.push(r.url());
  });
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  await page.goto(authUrl);
  return { context, page, externalRequests, consoleErrors };
}

export async function screenshot(page: Page, name: string): Promise<string> {
  const dir = join(ARTIFACTS, 'screenshots');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}
