import { defineConfig } from 'vitest/config';

// Vitest for `npm run mutation` (bin/mutation.js) only: the unit tests that guard the mutated module,
// named by POLYHOP_MUTATION_TESTS (comma-separated globs), without the browser global set-up or the
// summary reporter of vitest.config.ts (Stryker runs it inside its sandbox copy, once per mutant).
const include = (process.env['POLYHOP_MUTATION_TESTS'] ?? '').split(',').filter((g) => g.length > 0);
if (include.length === 0) throw new Error('POLYHOP_MUTATION_TESTS names no test files');

export default defineConfig({
  test: {
    include,
    // Stryker forces pool 'threads' (one worker). @parcel/watcher's addon is not context-aware: loaded
    // once per process, so with a fresh thread per file the second file importing the Engine
    // (questionEstimate.test.ts after answerGraph.test.ts) fails "Module did not self-register" and
    // loads no tests. One shared thread loads it once.
    isolate: false,
    testTimeout: 120_000,
    hookTimeout: 300_000,
  },
});
