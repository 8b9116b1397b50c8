import { afterAll, beforeAll, describe } from 'vitest';
import type { Browser } from 'playwright-core';
import { BROWSER_SKIPPED_BY_REQUEST, launchChromium } from './chromium.js';
import { startE2eServer, type E2eServer } from './e2eServer.js';

/** A block of tests that drive Chromium: skipped only by request, never for want of a browser. */
export const describeInBrowser = describe.skipIf(BROWSER_SKIPPED_BY_REQUEST);

/**
 * A fresh install behind the browser-mode server and one Chromium, started before the block's tests
 * and closed after them. Call it inside the block; read `server` and `browser` in the tests.
 */
export function freshAppInBrowser(): { readonly server: E2eServer; readonly browser: Browser } {
  const app = {} as { server: E2eServer; browser: Browser };
  beforeAll(async () => {
    app.server = await startE2eServer();
    app.browser = await launchChromium();
  });
  afterAll(async () => {
    await app.browser?.close();
    await app.server?.close();
  });
  return app;
}
