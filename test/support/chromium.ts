import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { repoRoot } from './tempEngine.js';

/** `POLYHOP_SKIP_BROWSER=1` leaves the browser suites out on purpose; the summary says so. */
export const BROWSER_SKIPPED_BY_REQUEST = process.env.POLYHOP_SKIP_BROWSER === '1';

export interface FoundChromium {
  path: string;
  /** Where it came from, for the test output. */
  source: string;
}

/**
 * The browser the tests drive: one named by POLYHOP_CHROMIUM or CHROME_PATH, else the
 * machine's own (Debian's chromium), else the Chromium that ships inside the
 * `@sparticuz/chromium` npm package (unpacked into the temp folder on first use), so a machine
 * with only Node and npm runs the browser tests too. Playwright's browser download is never used.
 */
export async function findChromium(): Promise<FoundChromium> {
  for (const name of ['POLYHOP_CHROMIUM', 'CHROME_PATH'] as const) {
    const path = process.env[name];
    if (!path) continue;
    if (!existsSync(path)) throw new Error(`${name}=${path}: no such file`);
    return { path, source: name };
  }
  if (existsSync('/usr/bin/chromium')) return { path: '/usr/bin/chromium', source: "the machine's chromium" };
  try {
    const { default: packaged } = await import('@sparticuz/chromium');
    const { version } = JSON.parse(
      readFileSync(join(repoRoot, 'node_modules/@sparticuz/chromium/package.json'), 'utf8'),
    ) as { version: string };
    return { path: await packaged.executablePath(), source: `@sparticuz/chromium ${version} (npm)` };
  } catch (error) {
    throw new Error(
      `no Chromium for the browser tests: none at POLYHOP_CHROMIUM, CHROME_PATH or /usr/bin/chromium, and @sparticuz/chromium could not unpack its own (${(error as Error).message}); run npm ci, or set POLYHOP_SKIP_BROWSER=1 to skip the browser tests on purpose`,
      { cause: error },
    );
  }
}

/** Set by the suite's global set-up (test/support/browserSetup.ts), so each test file reuses its answer. */
const FOUND_PATH = 'POLYHOP_TEST_CHROMIUM_PATH';
const FOUND_ERROR = 'POLYHOP_TEST_CHROMIUM_ERROR';

export function publishFoundChromium(found: FoundChromium | Error): void {
  if (found instanceof Error) process.env[FOUND_ERROR] = found.message;
  else process.env[FOUND_PATH] = found.path;
}

async function chromiumPath(): Promise<string> {
  if (process.env[FOUND_ERROR]) throw new Error(process.env[FOUND_ERROR]);
  return process.env[FOUND_PATH] ?? (await findChromium()).path;
}

export const ARTIFACTS = join(repoRoot, 'test-artifacts');

/** How WebGL is drawn without a GPU: `--disable-gpu` (the default) or ANGLE over SwiftShader. */
export const GL_FLAGS = {
  'disable-gpu': ['--disable-gpu'],
  swiftshader: ['--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
} as const;
export type GlMode = keyof typeof GL_FLAGS;

export async function launchChromium(options: { gl?: GlMode } = {}): Promise<Browser> {
  return chromium.launch({
    executablePath: await chromiumPath(),
    args: [
      '--headless',
      '--no-sandbox',
      ...GL_FLAGS[options.gl ?? 'disable-gpu'],
      '--disable-quic',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/**
 * A page that records every request leaving 127.0.0.1 (the app must make none) and every
 * console error.
 */
export async function openApp(
  browser: Browser,
  authUrl: string,
  options: {
    colorScheme?: 'light' | 'dark';
    /** Script run in the page before the app's own (a test double). */ initScript?: string;
  } = {},
): Promise<{ context: BrowserContext; page: Page; externalRequests: string[]; consoleErrors: string[] }> {
  const context = await browser.newContext({
    colorScheme: options.colorScheme ?? 'light',
    viewport: { width: 1280, height: 860 },
  });
  if (options.initScript) await context.addInitScript(options.initScript);
  const page = await context.newPage();
  const externalRequests: string[] = [];
  const consoleErrors: string[] = [];
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (!['127.0.0.1', 'localhost'].includes(url.hostname) && !['data:', 'blob:'].includes(url.protocol))
      externalRequests.push(r.url());
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
