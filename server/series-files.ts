import type { DuckDBConnection } from '@duckdb/node-api';
import { randomBytes } from 'node:crypto';
import { readList, rowDecoder } from '../core/db/columns.ts';
import { quoteIdentifier, streamJsonRows } from '../core/db/duckdb.ts';
import { rowOrder } from '../core/row-order.ts';
import { viewName, type Table } from '../core/table.ts';
import type { RenderedSeries } from '../datasets/answers/serving.ts';
import type { Dataset, Resource } from '../datasets/vocabulary/dataset.ts';
import { renderContext, type RenderContext } from '../datasets/vocabulary/render.ts';
import { escapedInString, instantKeys, inTimeZone, stringify, WrittenJson } from '../datasets/vocabulary/written.ts';
import { type SeriesFile, SeriesFileWriter, seriesKey } from './series-store.ts';
import { keptSeries } from './storage-plan.ts';

/**
 * The serving database's series (series-store.ts): a table's rows rendered once as each series
 * resource, read from the snapshot's Parquet files in order (DuckDB sorts them, spilling what does
 * not fit its memory to disk), and answered from there.
 *
 * A row is rendered with links under the build's token and each instant as a mark holding its
 * epoch milliseconds; a request's answer is the run of texts with each mark replaced by the
 * instant in the request's zone, as the rendering function would have written it (`context.time`),
 * and the token by the links' base. A row its upstream wrote (a WrittenJson) holds its instants as
 * written: in another zone than UTC they are moved into it, as asWritten does.
 */

/** A rendering context for the files: links under `token`, each instant a mark `\0<nonce>:<ms>\0` (escaped as JSON writes it). */
const markingContext = (token: string, nonce: string): RenderContext => ({ ...renderContext({ baseUrl: token }), time: (ms) => `\0${nonce}:${ms}\0` });

export async function writeSeriesFiles(
  connection: DuckDBConnection,
  dataset: Dataset,
  table: Table,
  token: string,
  /** Where a series' files go (without extensions), by its name. */
  fileOf: (name: string) => string,
): Promise<void> {
  const decode = rowDecoder(table.columns);
  const stored = viewName(dataset, table.name);
  for (const series of keptSeries(dataset, table)) {
    // Unguessable, so no text in the data can be taken for a mark.
    const nonce = randomBytes(9).toString('base64url');
    const context = markingContext(token, nonce);
    const naming = series.columns.map((column, i) => `CAST(${quoteIdentifier(column)} AS VARCHAR) AS "__series${i}"`);
    const time = quoteIdentifier(series.time);
    const present = [...series.columns, series.time].map((column) => `${quoteIdentifier(column)} IS NOT NULL`).join(' AND ');
    // Rows of one time in the order of the table's rows, as the server's statements give them.
    const order = [...new Set([...series.columns, series.time, ...rowOrder(table)])].map(quoteIdentifier).join(', ');
    const writer = new SeriesFileWriter(fileOf(series.name));
    const sql = `SELECT ${[...naming, `epoch_us(${time}) AS "__time"`, readList(table.columns)].join(', ')} FROM ${quoteIdentifier(stored)} WHERE ${present} ORDER BY ${order}`;
    for await (const rows of streamJsonRows(connection, sql)) {
      for (const read of rows) {
        const key = seriesKey(series.columns.map((_, i) => read[`__series${i}`]));
        const rendered = series.resource.render(decode(read), context);
        writer.add(key, Number(read.__time), stringify(rendered), rendered instanceof WrittenJson);
      }
    }
    writer.finish({ nonce, token });
  }
}

/** A series' files opened for answers, its rows rendered as `resource`. */
export function servedSeries(file: SeriesFile, resource: Resource): RenderedSeries {
  const { nonce, token } = file.about as { nonce: string; token: string };
  const instants = instantKeys(resource.schema);
  // The mark as it stands in JSON text, where \0 is written \u0000.
  const mark = new RegExp(`\\\\u0000${nonce}:(-?[0-9.e+-]+)\\\\u0000`, 'g');
  return {
    rows(values, { from, to, toIncluded }, context, page) {
      const run = file.run(seriesKey(values), from, to, toIncluded, page);
      if (!run.count) return { text: '', count: 0, total: run.total };
      const instantsIn = (text: string) => text.replace(mark, (_, ms: string) => escapedInString(context.time(Number(ms))));
      let text: string;
      if (!run.written) text = instantsIn(run.bytes.toString('utf8', 0, run.bytes.length - 1));
      else {
        const texts: string[] = [];
        for (let i = 0; i < run.count; i++) {
          const row = run.bytes.toString('utf8', run.starts[i], run.starts[i + 1]! - 1);
          // A row rendered from columns has marks; one its upstream wrote has its instants as written.
          texts.push(row.includes(nonce) ? instantsIn(row) : context.timeZone !== 'UTC' && instants.size ? inTimeZone(row, instants, context) : row);
        }
        text = texts.join(',');
      }
      const linked = context.base === undefined || !text.includes(token) ? text : text.replaceAll(token, escapedInString(context.base));
      return { text: linked, count: run.count, total: run.total };
    },
  };
}
