import * as param from '../../vocabulary/param.ts';
import type { AnswerKind } from '../kind.ts';
import { columnProblems, paramProblems, readProblems, tableOf } from '../problems.ts';
import { crawlSeries, seriesProblems, type SeriesStep } from './crawl.ts';
import { seriesFiles } from './files.ts';
import { monthLayout, type MonthUnit } from './layout.ts';
import { answerSeries } from './serve.ts';
import type { SeriesAnswer } from './declaration.ts';

export const series: AnswerKind<SeriesAnswer, SeriesStep, MonthUnit> = {
  kind: 'series',
  params: () => {
    const range = param.dayRange();
    return { params: range.params, rules: range.rules };
  },
  problems: (answer, scope) => [
    ...readProblems(scope, answer.resource, [answer.time]),
    ...answer.parents.flatMap((parent) => [
      ...paramProblems(scope, [parent.param]),
      ...readProblems(scope, parent.resource, [...parent.match, parent.key]),
      ...columnProblems(tableOf(scope, answer.resource), [parent.column]),
    ]),
  ],
  reads: (answer) => [answer.resource, ...answer.parents.map((parent) => parent.resource)],

  server: {
    serve: answerSeries,
    /**
     * A parent is found by its match columns, one value at a time: indexed, so the one row is
     * fetched rather than every id scanned. The rows are kept rendered, by parents and time.
     */
    storage: (answer) => ({
      lookups: answer.parents.map((parent) => ({ resource: parent.resource, columns: parent.match })),
      series: { resource: answer.resource, columns: answer.parents.map((parent) => parent.column), time: answer.time },
    }),
  },

  tree: { layout: () => monthLayout, files: seriesFiles },

  crawl: { problems: seriesProblems, run: crawlSeries },

  sql: (answer, { main, view, value }) => {
    const narrowed = answer.parents.map((parent) =>
      parent.match[0] === parent.key
        ? `${parent.column} = ${value(parent.param)}`
        : `${parent.column} = (SELECT ${parent.key} FROM ${view(parent.resource)} WHERE ${parent.match[0]} = ${value(parent.param)})`,
    );
    return `SELECT * FROM ${main}\nWHERE ${narrowed.join('\n  AND ')}\nORDER BY ${answer.time} DESC\nLIMIT 100;`;
  },
};

export type { Parent, SeriesAnswer } from './declaration.ts';
