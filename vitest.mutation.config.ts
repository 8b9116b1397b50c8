import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Vitest for `npm run mutation` (bin/mutation.js) only: the unit tests that guard the mutated module,
// named by POLYHOP_MUTATION_TESTS (comma-separated globs), without the browser global set-up or the
// summary reporter of vitest.config.ts (Stryker runs it inside its sandbox copy, once per mutant).
const include = (process.env['POLYHOP_MUTATION_TESTS'] ?? '').split(',').filter((g) => g.length > 0);
if (include.length === 0) throw new Error('POLYHOP_MUTATION_TESTS names no test files');

export default defineConfig({
  // Stryker forces pool 'threads' and gives each run a new worker thread: @parcel/watcher's addon,
  // registered once per process, failed in every later one (see the stub). isolate: false did not help.
  resolve: {
    alias: { '@parcel/watcher': fileURLToPath(new URL('./test/mutation/parcelWatcherStub.ts', import.meta.url)) },
  },
  test: {
    include,
    testTimeout: 120_000,
    hookTimeout: 300_000,
  },
});
