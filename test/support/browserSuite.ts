import { describe } from 'vitest';
import { BROWSER_SKIPPED_BY_REQUEST } from './chromium.js';

/** A block of tests that drive Chromium: skipped only by request, never for want of a browser. */
export const describeInBrowser = describe.skipIf(BROWSER_SKIPPED_BY_REQUEST);
