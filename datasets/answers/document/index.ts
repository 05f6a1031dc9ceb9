import { quoteIdentifier } from '../../../core/db/duckdb.ts';
import { notFound } from '../../../core/problem.ts';
import { storedProblems } from '../crawling.ts';
import type { AnswerKind } from '../kind.ts';
import { readProblems } from '../problems.ts';
import { columnsFor, renderRows, resourceOf, selectList } from '../serving.ts';
import { pathIn, WHOLE, wholeLayout } from '../static-files.ts';

/** The row whose columns hold these values: an endpoint that is one stored document, e.g. a register dictionary. */
export interface DocumentAnswer {
  readonly kind: 'document';
  readonly resource: string;
  readonly where: Readonly<Record<string, string>>;
}

/** Fetched whole each pull, whatever JSON it is. */
export interface DocumentStep {
  readonly path: string;
}

const quote = (value: string) => `'${value.replaceAll("'", "''")}'`;

export const document: AnswerKind<DocumentAnswer, DocumentStep> = {
  kind: 'document',
  problems: (answer, scope) => readProblems(scope, answer.resource, Object.keys(answer.where)),
  reads: (answer) => [answer.resource],
  canBeMissing: true,

  server: {
    keepsAnswers: true,
    async serve(request, answer) {
      const resource = resourceOf(request.dataset, answer.resource);
      const where = Object.keys(answer.where)
        .map((column, i) => `${quoteIdentifier(column)} = $${i + 1}`)
        .join(' AND ');
      const rows = await request.connection.rows(
        `SELECT ${selectList(columnsFor(request, resource))} FROM ${request.served.source(request.dataset, resource)} WHERE ${where}`,
        Object.values(answer.where),
      );
      if (!rows[0]) throw notFound(`this snapshot holds no ${request.path}`, 'path');
      return renderRows(request, resource, rows)[0];
    },
    storage: (answer) => ({ stored: [answer.resource] }),
  },

  tree: {
    layout: () => wholeLayout,
    async *files(source, answer) {
      const { dataset, rows, context } = source;
      const [row] = await rows.all(dataset, answer.resource, { equal: answer.where });
      if (row) yield { type: 'rendered', path: pathIn(source, wholeLayout, {}, WHOLE), body: rows.resource(dataset, answer.resource).render(row, context) };
    },
  },

  crawl: {
    problems: (_step, _endpoint, answer, scope) => storedProblems(scope, answer.resource),
    async run(crawl, step, endpoint, answer) {
      crawl.plan(crawl.table(answer.resource).name, { kind: 'replace' });
      crawl.planned(1);
      await crawl.unit(`GET ${endpoint.fullPath}`, async () => {
        // The spec shows no payload here: whatever JSON comes (an object, an array, …) is the document.
        const got = await crawl.get(endpoint.fullPath, {}, {});
        return crawl.found(got, step.path, {}, [{ resource: answer.resource, document: true }], { records: 1 });
      });
    },
  },

  sql: (answer, { main }) =>
    `SELECT * FROM ${main} WHERE ${Object.entries(answer.where)
      .map(([column, v]) => `${column} = ${quote(v)}`)
      .join(' AND ')};`,
};
