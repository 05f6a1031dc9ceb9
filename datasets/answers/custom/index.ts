import { Problem } from '../../../core/problem.ts';
import type { AnswerKind } from '../kind.ts';
import { readProblems, resourceProblems } from '../problems.ts';
import { enveloped } from '../serving.ts';
import { paramsIn, pathIn, WHOLE, wholeLayout } from '../static-files.ts';
import { captureProblems, crawlCapture, type CaptureStep } from './capture.ts';
import { queryFor } from './query.ts';
import type { CustomAnswer } from './declaration.ts';

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

  server: {
    serve: async (request, answer) => enveloped(await answer.answer(queryFor(request), request.params, request.context), request.envelope),
  },

  tree: {
    layout: () => wholeLayout,
    /** One file, or one per value of each path parameter the declaration names. */
    async *files(source, answer) {
      const { dataset, endpoint, rows, context } = source;
      const query = rows.queryFor(dataset, context);
      let combinations: Record<string, string>[] = [{}];
      for (const name of endpoint.pathParams) {
        const each = answer.each![name]!;
        const found = [
          ...new Set(
            (await rows.all(dataset, each.resource))
              .map((row) => row[each.column])
              .filter((v) => v !== null && v !== undefined)
              .map(String),
          ),
        ];
        combinations = combinations.flatMap((values) => found.map((value) => ({ ...values, [name]: value })));
      }
      for (const values of combinations) {
        try {
          yield {
            type: 'rendered',
            path: pathIn(source, wholeLayout, values, WHOLE),
            body: enveloped(await answer.answer(query, paramsIn(source, wholeLayout, values, WHOLE), context), source.envelope),
          };
        } catch (error) {
          if (!(error instanceof Problem && error.slug === 'not-found')) throw error;
        }
      }
    },
  },

  crawl: { problems: captureProblems, run: crawlCapture, present: (step) => step.parts !== undefined },

  sql: (_answer, { main, order }) => `SELECT * FROM ${main}\nORDER BY ${order}\nLIMIT 10;`,
};

export type { Query, CustomAnswer } from './declaration.ts';
