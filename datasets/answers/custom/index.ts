import { Problem } from '../../../core/problem.ts';
import type { RenderContext } from '../../vocabulary/render.ts';
import type { AnswerKind } from '../kind.ts';
import { readProblems, resourceProblems } from '../problems.ts';
import { enveloped } from '../serving.ts';
import { paramsIn, pathIn, WHOLE, wholeLayout } from '../static-files.ts';
import { captureProblems, crawlCapture, type CaptureStep } from './capture.ts';
import { queryFor } from './query.ts';

/** What a custom answer may ask of the snapshot; rows come back as the table's JS rows. */
export interface Query {
  /** Rows of a resource's table in its order, narrowed by equal column values. */
  rows(resource: string, where?: Readonly<Record<string, string | number>>): Promise<Record<string, unknown>[]>;
  /** The rows of the newest capture (greatest time column) of a resource's table, narrowed likewise. */
  latest(resource: string, where?: Readonly<Record<string, string | number>>): Promise<Record<string, unknown>[]>;
  /** A row rendered as its resource for this request: to put in the answer as it is (a record kept as written stays its text). */
  render(resource: string, row: Record<string, unknown>): unknown;
  /** The same as a value, to compose an answer from (a live station with its readings). */
  value(resource: string, row: Record<string, unknown>): Record<string, unknown>;
}

/** Anything else, composed from the snapshot through `Query`: the live maps. */
export interface CustomAnswer {
  readonly kind: 'custom';
  /** The resources it reads, so their tables are known without running it. */
  readonly reads: readonly string[];
  /**
   * For each path parameter, the rows whose column holds the values worth a file in the
   * static tree (the server answers any value; the tree holds what the snapshot has).
   */
  readonly each?: Readonly<Record<string, { readonly resource: string; readonly column: string }>>;
  readonly answer: (query: Query, params: Readonly<Record<string, unknown>>, context: RenderContext) => Promise<unknown>;
}

export const custom: AnswerKind<CustomAnswer, CaptureStep> = {
  kind: 'custom',
  problems: (answer, scope) => [
    ...answer.reads.flatMap((resource) => resourceProblems(scope, resource)),
    ...scope.pathParams.flatMap((name) => {
      const each = answer.each?.[name];
      return each ? readProblems(scope, each.resource, [each.column]) : [`does not say where the values of path parameter {${name}} come from (each.${name})`];
    }),
  ],
  reads: (answer) => answer.reads,

  serve: async (request, answer) => enveloped(await answer.answer(queryFor(request), request.params, request.context), request.envelope),

  tree: () => wholeLayout,
  /** One file, or one per value of each path parameter the declaration names. */
  async *files(source, answer) {
    const { dataset, endpoint, rows, context } = source;
    const query = rows.queryFor(dataset, context);
    let combinations: Record<string, string>[] = [{}];
    for (const name of endpoint.pathParams) {
      const each = answer.each![name]!;
      const found = [...new Set((await rows.all(dataset, each.resource)).map((row) => row[each.column]).filter((v) => v !== null && v !== undefined).map(String))];
      combinations = combinations.flatMap((values) => found.map((value) => ({ ...values, [name]: value })));
    }
    for (const values of combinations) {
      try {
        yield { path: pathIn(source, wholeLayout, values, WHOLE), body: enveloped(await answer.answer(query, paramsIn(source, wholeLayout, values, WHOLE), context), source.envelope) };
      } catch (error) {
        if (!(error instanceof Problem && error.slug === 'not-found')) throw error;
      }
    }
  },

  crawl: { problems: captureProblems, run: crawlCapture },

  sql: (_answer, { main, order }) => `SELECT * FROM ${main}\nORDER BY ${order}\nLIMIT 10;`,
};
