// Stands in for @parcel/watcher under `npm run mutation` only (vitest.mutation.config.ts). Its addon is
// not context-aware: Node registers it once per process, so in every Stryker mutant run after the
// first (a new worker thread in the same runner process) a test file importing the Engine failed to
// load ("Module did not self-register"), ran no tests, and its mutants were counted as surviving.
// No test in the mutated modules' lists watches a folder; one that did fails here, loudly.
const watcher = {
  subscribe(): never {
    throw new Error('@parcel/watcher is not available under npm run mutation (test/mutation/parcelWatcherStub.ts)');
  },
};
export default watcher;
