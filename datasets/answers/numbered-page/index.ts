import * as param from '../../vocabulary/param.ts';
import type { AnswerKind } from '../kind.ts';
import { readProblems } from '../problems.ts';
import { crawlWindows, windowsProblems, type WindowsStep } from './crawl.ts';
import { numberedPageFiles } from './files.ts';
import { dayLayout, type DayUnit } from './layout.ts';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from './numbered-page.ts';
import { answerNumberedPage } from './serve.ts';
import type { NumberedPageAnswer } from './declaration.ts';

const page = param.integer({ min: 1, max: 1_000_000, default: 1 }, 'Page number, from 1; default 1.', 'Numer strony, od 1; domyślnie 1.');
const pageSize = param.integer(
  { min: 1, max: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE },
  `Rides per page, 1 to ${MAX_PAGE_SIZE}; default ${DEFAULT_PAGE_SIZE}.`,
  `Przejazdy na stronę, od 1 do ${MAX_PAGE_SIZE}; domyślnie ${DEFAULT_PAGE_SIZE}.`,
);

export const numberedPage: AnswerKind<NumberedPageAnswer, WindowsStep, DayUnit> = {
  kind: 'numbered-page',
  params: (answer) => {
    const range = param.dayRange({ maxDays: answer.maxDays });
    return { params: { ...range.params, page, pageSize }, rules: range.rules };
  },
  problems: (answer, scope) => readProblems(scope, answer.resource, [answer.time, ...(answer.until ? [answer.until] : [])]),
  reads: (answer) => [answer.resource],

  server: {
    serve: answerNumberedPage,
    /** Its rows are kept rendered in time order, as one series: a page is found by the times around the range. */
    storage: (answer) => ({ series: { resource: answer.resource, columns: [], time: answer.time } }),
  },

  tree: { layout: () => dayLayout, files: numberedPageFiles },

  crawl: { problems: windowsProblems, run: crawlWindows },

  sql: (_answer, { main, order }) => `SELECT * FROM ${main}\nORDER BY ${order}\nLIMIT 10;`,
};

export type { NumberedPageAnswer } from './declaration.ts';
