import type { RenderContext } from '../../vocabulary/render.ts';
import * as param from '../../vocabulary/param.ts';
import type { AnswerKind } from '../kind.ts';
import { columnProblems, paramProblems, readProblems, tableOf } from '../problems.ts';
import { crawlSeries, seriesProblems, type SeriesStep } from './crawl.ts';
import { seriesFiles } from './files.ts';
import { monthLayout, type MonthUnit } from './layout.ts';
import { answerSeries } from './serve.ts';

/** A path parameter naming another resource: it must exist (else 404), and its key narrows the rows. */
export interface Parent {
  readonly param: string;
  readonly resource: string;
  /** Columns of the parent tried in order to find the named row, e.g. ['id', 'external_id']. */
  readonly match: readonly string[];
  /** The parent's column whose value narrows the rows… */
  readonly key: string;
  /** …compared with this column of the answer's table. */
  readonly column: string;
}

/**
 * The rows under parent resources whose `time` falls in from..to, wrapped by `envelope`: a
 * counter's readings, a station's history of one sensor.
 */
export interface SeriesAnswer {
  readonly kind: 'series';
  readonly resource: string;
  readonly parents: readonly Parent[];
  readonly time: string;
  readonly envelope: (items: unknown[], params: Readonly<Record<string, unknown>>, context: RenderContext) => unknown;
}

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

  serve: answerSeries,
  /** A parent is found by its match columns, one value at a time: indexed, so the one row is fetched rather than every id scanned. */
  storage: (answer) => ({ lookups: answer.parents.map((parent) => ({ resource: parent.resource, columns: parent.match })) }),

  tree: () => monthLayout,
  files: seriesFiles,

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
