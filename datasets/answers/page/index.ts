import * as param from '../../vocabulary/param.ts';
import type { AnswerKind } from '../kind.ts';
import { columnProblems, paramProblems, resourceProblems, tableOf } from '../problems.ts';
import { crawlPages, pagesProblems, type PagesStep } from './crawl.ts';
import { pageFiles } from './files.ts';
import { declaredColumns, derivedColumn, filteredColumns, isComparison } from './filters.ts';
import { pageLayout, type PageUnit } from './layout.ts';
import { PAGE_LIMIT, pageLimitOf } from './offset-page.ts';
import { readRowScan } from './scan-reader.ts';
import { answerPage } from './serve.ts';
import type { PageAnswer } from './declaration.ts';

const limit = param.integer(
  { min: 1, max: PAGE_LIMIT, default: PAGE_LIMIT },
  `Maximum number of records to return, 1 to ${PAGE_LIMIT}; by default as many as the upstream returns to a request without limit (${PAGE_LIMIT} from the sample city).`,
  `Maksymalna liczba zwracanych rekordów, od 1 do ${PAGE_LIMIT}; domyślnie tyle, ile źródło zwraca na żądanie bez limit (${PAGE_LIMIT} w przykładowym mieście).`,
);
const offset = param.integer({ min: 0, max: 1_000_000_000, default: 0 }, 'Number of records to skip; default 0.', 'Liczba pomijanych rekordów; domyślnie 0.');

export const page: AnswerKind<PageAnswer, PagesStep, PageUnit> = {
  kind: 'page',
  params: () => ({ params: { limit, offset } }),
  problems: (answer, scope) => [
    ...resourceProblems(scope, answer.resource),
    ...paramProblems(scope, Object.keys(answer.filters)),
    ...Object.values(answer.filters).flatMap((filter) => columnProblems(tableOf(scope, answer.resource), declaredColumns(filter))),
  ],
  reads: (answer) => [answer.resource],

  server: {
    serve: answerPage,
    /**
     * The table is stored in list order, with the columns its filters derive; what the filters
     * read is kept in memory, but lists of ids (listContains), which a scan of the stored table
     * answers in a few milliseconds, while in memory they would take up most of the copy.
     * Equalities and ranges are also scanned in the server's process (scan.ts), where their
     * columns allow.
     */
    storage: (answer) => {
      const filters = Object.values(answer.filters);
      const resource = answer.resource;
      return {
        stored: [resource],
        rendered: { resource, keys: [] },
        derived: { resource, columns: filters.flatMap((filter) => derivedColumn(filter) ?? []) },
        inMemory: { resource, columns: [...new Set(filters.flatMap(filteredColumns))] },
        inProcess: { resource, columns: [...new Set(filters.filter(isComparison).map((filter) => filter.column))], read: readRowScan },
      };
    },
  },

  tree: {
    layout: (defaults) => pageLayout(pageLimitOf(defaults)),
    files: pageFiles,
    prints: (answer, defaults) => ({ kind: 'pages', resource: answer.resource, pageRows: pageLimitOf(defaults) }),
  },

  crawl: { problems: pagesProblems, run: crawlPages },

  sql: (_answer, { main, order }) => `SELECT * FROM ${main}\nORDER BY ${order}\nLIMIT 10;`,
};

export { filter, type Filter } from './filters.ts';

export type { PageAnswer } from './declaration.ts';
