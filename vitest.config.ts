import { defineConfig } from 'vitest/config';

// Three suites by what a test needs (see README "Tests"): unit (scripted LLM, no models),
// runtime (real node-llama-cpp / ONNX on generated tiny models), e2e (Chromium against browser mode).
export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts', 'test/runtime/**/*.test.ts', 'test/e2e/**/*.test.ts'],
    pool: 'forks',
    // The heap tests call gc() between measurements; switching the flag on at run time (v8.setFlagsFromString)
    // is undefined behaviour in V8 and once ended a CI worker mid-test.
    execArgv: ['--expose-gc'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    globalSetup: ['./test/support/browserSetup.ts'],
    reporters: ['default', './test/support/summaryReporter.ts'],
  },
});
