import type { Reporter, TestCase, TestModule } from 'vitest/node';
import { BROWSER_SKIPPED_BY_REQUEST } from './chromium.js';

/**
 * Prints the plain closing line CI reads in any language: `N passed, N failed, N skipped`.
 * Tests that never ran because their file or a set-up hook failed count as failed, not
 * skipped: a missing browser or tool must not pass for a skip.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    let skippedByRequest = 0;
    const notRun: string[] = [];
    for (const module of testModules) {
      const browserModule = BROWSER_SKIPPED_BY_REQUEST && module.moduleId.includes('/test/e2e/');
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed' || setUpFailed(test)) failed++;
        else {
          skipped++;
          if (browserModule) skippedByRequest++;
          else notRun.push(`${module.relativeModuleId} > ${test.fullName} (${state})`);
        }
      }
      if (module.state() === 'failed' && [...module.children.allTests()].length === 0) failed++;
    }
    // A skip that nobody asked for is named, so it cannot pass unnoticed.
    for (const name of notRun) process.stdout.write(`\nskipped: ${name}`);
    if (skippedByRequest > 0)
      process.stdout.write(`\n${skippedByRequest} skipped by request: the browser tests (POLYHOP_SKIP_BROWSER=1)`);
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}

/** Whether a file or suite around the test failed outside its tests (collection, a before-all hook). */
function setUpFailed(test: TestCase): boolean {
  for (let around = test.parent; ; around = around.parent) {
    if (around.errors().length > 0) return true;
    if (around.type === 'module') return false;
  }
}
