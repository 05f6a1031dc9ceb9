import { defineConfig } from 'vitest/config';

/** The full suite (npm test, what CI runs): every test, over the tiny sample city generated once per run. */
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/setup/run-dir.ts', 'test/setup/tiny-sample.ts'],
    // Integration tests generate cities and run DuckDB; a slow machine must not fail them.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
