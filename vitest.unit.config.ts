import { defineConfig } from 'vitest/config';

/**
 * The fast tier (npm run test:unit): the tests that need no sample city (so no global setup makes
 * one), no Chromium, no nginx and no Python, each in seconds. A test reading the tiny sample fails
 * here with a message saying so (test/fixtures/tiny.ts); one that starts a browser, nginx or Python,
 * or generates a city, belongs to the full suite only. The full suite runs these too.
 */
export default defineConfig({
  test: {
    include: [
      'test/layers.test.ts',
      'test/docs/links.test.ts',
      'test/cli/options.test.ts',
      'test/cli/log-lines.test.ts',
      'test/core/clock.test.ts',
      'test/core/progress.test.ts',
      'test/server/kept-answers.test.ts',
      'test/server/http/respond.test.ts',
      'test/core/mirror-status.test.ts',
      'test/scripts/mirror/cadence.test.ts',
      'test/core/heap.test.ts',
      'test/scripts/static/downloads/column-statistics-memory.test.ts',
      'test/scripts/static/stored-order.test.ts',
      'test/core/memo.test.ts',
      'test/core/file-bytes.test.ts',
      'test/scripts/pull/journal.test.ts',
      'test/core/source-hash.test.ts',
      'test/core/zoned-time.test.ts',
      'test/core/db/in-turn.test.ts',
      'test/core/snapshot/staged-rows.test.ts',
      'test/core/snapshot/staged-join.test.ts',
      'test/core/snapshot/table-writer.test.ts',
      'test/datasets/declarations.test.ts',
      'test/datasets/vocabulary/geometry.test.ts',
      'test/datasets/vocabulary/param.test.ts',
      'test/datasets/vocabulary/render.test.ts',
      'test/datasets/vocabulary/written.test.ts',
      'test/datasets/answers/envelope.test.ts',
      'test/datasets/answers/file-names.test.ts',
      'test/datasets/answers/kinds.test.ts',
      'test/datasets/answers/page/offset-page.test.ts',
      'test/scripts/pull/range-rules.test.ts',
      'test/scripts/sample/register-days.test.ts',
      'test/scripts/static/next-state.test.ts',
      'test/scripts/static/tree-output.test.ts',
      'test/scripts/static/tree-writers.test.ts',
      'test/scripts/static/variants.test.ts',
      'test/server/record-store.test.ts',
      'test/server/series-store.test.ts',
      'test/site/docs.test.ts',
      'test/site/figures.test.ts',
      'test/site/query-model.test.ts',
      'test/site/client/*.test.ts',
    ],
    globalSetup: ['test/setup/run-dir.ts'],
    // As in the full suite: a loaded machine must not fail a test by its clock alone.
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
