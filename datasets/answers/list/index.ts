import { quoteIdentifier } from '../../../core/db/duckdb.ts';
import { rowOrder } from '../../../core/row-order.ts';
import { storedProblems } from '../crawling.ts';
import type { AnswerKind } from '../kind.ts';
import { resourceProblems } from '../problems.ts';
import { columnsFor, renderRows, resourceOf, selectList } from '../serving.ts';
import { pathIn, WHOLE, wholeLayout } from '../static-files.ts';

/** Every row of the resource's table, in table order, as an array: `/bikes`, `/counters`, `/stations`. */
export interface ListAnswer {
  readonly kind: 'list';
  readonly resource: string;
}

/** Fetched whole each pull. */
export interface ListStep {
  readonly path: string;
}

export const list: AnswerKind<ListAnswer, ListStep> = {
  kind: 'list',
  problems: (answer, scope) => resourceProblems(scope, answer.resource),
  reads: (answer) => [answer.resource],

  server: {
    async serve(request, answer) {
      const resource = resourceOf(request.dataset, answer.resource);
      const table = request.dataset.tables[resource.table]!;
      const rows = await request.connection.rows(
        `SELECT ${selectList(columnsFor(request, resource))} FROM ${request.served.source(request.dataset, resource)} ORDER BY ${rowOrder(table).map(quoteIdentifier).join(', ')}`,
      );
      return renderRows(request, resource, rows);
    },
  },

  tree: {
    layout: () => wholeLayout,
    async *files(source, answer) {
      const { dataset, rows, context } = source;
      const resource = rows.resource(dataset, answer.resource);
      const items = (await rows.all(dataset, answer.resource)).map((row) => resource.render(row, context));
      yield { type: 'rendered', path: pathIn(source, wholeLayout, {}, WHOLE), body: items };
    },
  },

  crawl: {
    problems: (_step, _endpoint, answer, scope) => storedProblems(scope, answer.resource),
    async run(crawl, step, endpoint, answer) {
      crawl.plan(crawl.table(answer.resource).name, { kind: 'replace' });
      crawl.planned(1);
      const key = `GET ${endpoint.fullPath}`;
      await crawl.unit(key, async () => {
        const got = await crawl.get(endpoint.fullPath, {}, { shape: (body) => (Array.isArray(body) ? undefined : 'not an array') });
        return crawl.found(got, step.path, {}, [{ resource: answer.resource }], { records: (got.body as unknown[]).length });
      });
      // Later steps fan out over these rows (lists are short).
      crawl.keepRows(key, answer.resource);
    },
  },

  sql: (_answer, { main, order }) => `SELECT * FROM ${main}\nORDER BY ${order}\nLIMIT 10;`,
};
