import { BROWSER_SKIPPED_BY_REQUEST, findChromium, publishFoundChromium } from './chromium.js';

/**
 * Vitest global set-up: finds the browser once for the whole run (several test files unpacking
 * the npm Chromium at once would race) and says in the output which one the browser tests use.
 */
export default async function findBrowserOnce(): Promise<void> {
  if (BROWSER_SKIPPED_BY_REQUEST) {
    console.log('Browser tests: skipped by request (POLYHOP_SKIP_BROWSER=1)');
    return;
  }
  try {
    const found = await findChromium();
    publishFoundChromium(found);
    console.log(`Browser tests: Chromium from ${found.source} at ${found.path}`);
  } catch (error) {
    publishFoundChromium(error as Error);
    console.log(`Browser tests will fail: ${(error as Error).message}`);
  }
}
