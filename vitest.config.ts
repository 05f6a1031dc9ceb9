import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/setup/tiny-sample.ts'],
    // Integration tests generate cities and run DuckDB; a slow machine must not fail them.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
