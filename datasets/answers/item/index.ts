import type { Table } from '../../../core/table.ts';
import { notFound } from '../../../core/problem.ts';
import type { AnswerKind } from '../kind.ts';
import { columnProblems, paramProblems, resourceProblems, tableOf } from '../problems.ts';
import { findRow, renderRows, resourceOf, SerializedJson } from '../serving.ts';
import { pathIn, ROW_BUCKET, ROW_PRINT, UnnamableValue, WHOLE, wholeLayout, type CarriedFile } from '../static-files.ts';

/**
 * The value as each match column's key text (DuckDB's text of the column's value), where that is
 * certain: text as it is, integers in their shortest form. Anything else (a key of another type,
 * an integer out of range) is left to a statement over the stored rows.
 */
function recordKeys(table: Table, match: readonly string[], value: unknown): [string, string][] | undefined {
  const keys: [string, string][] = [];
  for (const column of match) {
    const kind = table.columns[column]?.kind;
    if (kind === 'varchar' && typeof value === 'string') keys.push([column, value]);
    else if (
      kind === 'integer' &&
      (typeof value === 'number' || (typeof value === 'string' && /^-?\d{1,9}$/.test(value))) &&
      Number.isSafeInteger(Number(value))
    )
      keys.push([column, String(Number(value))]);
    else return undefined;
  }
  return keys;
}

/**
 * Rows of changed buckets, at most, whose prints are read first and held (a rebuild after a pull);
 * past it, rows are read with their prints, so that a first build holds nothing per row.
 */
const ITEM_PRINTS_HELD = 100_000;

const missing = (answer: ItemAnswer, value: unknown) =>
  notFound(`no ${answer.resource} has ${answer.match.join(' or ')} ${JSON.stringify(value)}`, answer.param);

/** One row, found by a path parameter in the first of `match` columns that has it; 404 otherwise: `/transactions/{transactionGmlId}`. */
export interface ItemAnswer {
  readonly kind: 'item';
  readonly resource: string;
  readonly param: string;
  readonly match: readonly string[];
}

export const item: AnswerKind<ItemAnswer> = {
  kind: 'item',
  problems: (answer, scope) => [
    ...resourceProblems(scope, answer.resource),
    ...paramProblems(scope, [answer.param]),
    ...columnProblems(tableOf(scope, answer.resource), answer.match),
  ],
  reads: (answer) => [answer.resource],

  server: {
    keepsAnswers: true,
    async serve(request, answer) {
      const value = request.params[answer.param];
      const resource = resourceOf(request.dataset, answer.resource);
      const rendered = request.served.rendered(request.dataset, resource);
      const keys = rendered && recordKeys(request.dataset.tables[resource.table]!, answer.match, value);
      if (rendered && keys) {
        // Its record file: no statement at all.
        for (const [column, key] of keys) {
          const bytes = rendered.records.find(column, key);
          if (bytes !== undefined) return new SerializedJson(rendered.withBase(bytes, request.base));
        }
        throw missing(answer, value);
      }
      // Not stored rendered, or a key the record file cannot be asked for: the row, rendered now.
      const found = await findRow(request, answer.resource, answer.match, value);
      if (!found) throw missing(answer, value);
      // A copy: a remembered row serves many requests, and rows are decoded in place.
      return renderRows(request, found.resource, [{ ...found.row }])[0];
    },

    /**
     * Items are stored rendered where they can be, in record files found by their keys: DuckDB plans
     * a statement again for each set of bound values, and planning a read of every column of a wide
     * row took longer than the read itself. Else their rows are found by an index on the match columns.
     */
    storage: (answer) => ({
      stored: [answer.resource],
      rendered: { resource: answer.resource, keys: answer.match },
      lookups: [{ resource: answer.resource, columns: answer.match, unlessRendered: true }],
    }),
  },

  tree: {
    layout: () => wholeLayout,
    prints: (answer) => ({ kind: 'buckets', resource: answer.resource, keyColumn: answer.match[0]! }),

    /**
     * An item per row, in segments: the rows of a bucket of keys. A bucket whose print is unchanged
     * is carried whole; in the others, only rows whose print changed are read whole and rendered.
     */
    async *files(source, answer) {
      const { dataset, endpoint, rows, prints: printed, context } = source;
      const resource = rows.resource(dataset, answer.resource);
      const column = answer.match[0]!;
      const buckets = await printed.prints(dataset, { kind: 'buckets', resource: answer.resource, keyColumn: column });
      const segmentOf = (bucket: number) => `${endpoint.fullPath}#${bucket}`;
      const segments = buckets.map(({ bucket, rows: files, print }) => ({
        key: segmentOf(bucket),
        print,
        files,
        place: bucket,
        carried: source.previousSegment(segmentOf(bucket)) === print,
      }));
      yield { type: 'segments', segments, places: printed.buckets };
      const changed = segments.filter((segment) => !segment.carried);
      if (!changed.length) return;
      const only = changed.length === segments.length ? undefined : changed.map((segment) => segment.place);
      /** The item's file of a key, unless the key can name no file. */
      const fileOf = (key: string, print: string, bucket: number): CarriedFile | undefined => {
        try {
          return { path: pathIn(source, wholeLayout, { [answer.param]: key }, WHOLE), input: print, segment: segmentOf(bucket) };
        } catch (error) {
          if (!(error instanceof UnnamableValue)) throw error;
          source.leftOut?.(error.message);
          return undefined;
        }
      };
      // Many rows to look at (a first build): each read once with its print, nothing held per row.
      if (changed.reduce((sum, segment) => sum + segment.files, 0) > (source.itemPrintsHeld ?? ITEM_PRINTS_HELD)) {
        const withPrints = { prints: await printed.rowPrintsOf(dataset, answer.resource, column), buckets: only };
        for await (const batch of rows.stream(dataset, answer.resource, {}, { withPrints })) {
          const unchanged: CarriedFile[] = [];
          for (const row of batch) {
            const file = fileOf(String(row[column]), BigInt(row[ROW_PRINT] as string).toString(36), row[ROW_BUCKET] as number);
            delete row[ROW_PRINT];
            delete row[ROW_BUCKET];
            if (!file) continue;
            if (source.previousInput(file.path, file.segment) === file.input) unchanged.push(file);
            else yield { type: 'rendered', ...file, body: resource.render(row, context) };
          }
          if (unchanged.length) yield { type: 'carried', files: unchanged };
        }
        return;
      }
      // A few (a rebuild after a pull): their prints first, then only the rows whose print changed.
      const wanted = new Map<string, CarriedFile>();
      const unchanged: CarriedFile[] = [];
      for (const { key, print, bucket } of await printed.rowPrints(dataset, answer.resource, column, only)) {
        const file = fileOf(key, print, bucket);
        if (!file) continue;
        if (source.previousInput(file.path, file.segment) === print) unchanged.push(file);
        else wanted.set(key, file);
      }
      if (unchanged.length) yield { type: 'carried', files: unchanged };
      if (!wanted.size) return;
      // A few changed rows are asked for by key; many, by reading the table.
      const among = wanted.size <= 10_000 ? { column, values: [...wanted.keys()] } : undefined;
      let rendered = 0;
      for await (const batch of rows.stream(dataset, answer.resource, {}, { among })) {
        for (const row of batch) {
          const file = wanted.get(String(row[column]));
          if (!file) continue;
          rendered++;
          yield { type: 'rendered', ...file, body: resource.render(row, context) };
        }
      }
      if (rendered !== wanted.size) throw new Error(`${endpoint.fullPath}: ${wanted.size - rendered} of the rows the prints named were not read`);
    },
  },

  sql: (answer, { main, value }) => `SELECT * FROM ${main} WHERE ${answer.match[0]} = ${value(answer.param)};`,
};
