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
 * resource, read from the snapshot's Parquet files in order, and answered from there. DuckDB sorts
 * them a group of about ROWS_PER_SORT rows at a time (whole days of whole series, in the files'
 * order): a region's air readings sorted in one statement needed more than the builder's DuckDB
 * may take, and the need grew with the table.
 *
 * A row is rendered with links under the build's token and each instant as a mark holding its
 * epoch milliseconds; a request's answer is the run of texts with each mark replaced by the
 * instant in the request's zone, as the rendering function would have written it (`context.time`),
 * and the token by the links' base. A row its upstream wrote (a WrittenJson) holds its instants as
 * written: in another zone than UTC they are moved into it, as asWritten does.
 */

/** A rendering context for the files: links under `token`, each instant a mark `\0<nonce>:<ms>\0` (escaped as JSON writes it). */
const markingContext = (token: string, nonce: string): RenderContext => ({ ...renderContext({ baseUrl: token }), time: (ms) => `\0${nonce}:${ms}\0` });

/** About the most rows one statement sorts (more only when one series has more in a day). */
export const ROWS_PER_SORT = 2_000_000;

const DAY_MICROS = 86_400_000_000;

export async function writeSeriesFiles(
  connection: DuckDBConnection,
  dataset: Dataset,
  table: Table,
  token: string,
  /** Where a series' files go (without extensions), by its name. */
  fileOf: (name: string) => string,
  rowsPerSort = ROWS_PER_SORT,
): Promise<void> {
  const decode = rowDecoder(table.columns);
  const stored = quoteIdentifier(viewName(dataset, table.name));
  for (const series of keptSeries(dataset, table)) {
    // Unguessable, so no text in the data can be taken for a mark.
    const nonce = randomBytes(9).toString('base64url');
    const context = markingContext(token, nonce);
    const columns = series.columns.map(quoteIdentifier);
    const naming = columns.map((column, i) => `CAST(${column} AS VARCHAR) AS "__series${i}"`);
    const time = quoteIdentifier(series.time);
    const present = [...columns, time].map((column) => `${column} IS NOT NULL`).join(' AND ');
    // Rows of one time in the order of the table's rows, as the server's statements give them.
    const order = [...new Set([...series.columns, series.time, ...rowOrder(table)])].map(quoteIdentifier).join(', ');
    const day = `epoch_us(${time}) // ${DAY_MICROS}`;
    // Each series' days, numbered into groups in the files' order; its own names, so that a
    // statement joining it names the table's columns alone.
    const groups = '"__series_groups"';
    const keys = columns.map((_, i) => `"__key${i}"`);
    await connection.run(
      `CREATE OR REPLACE TEMP TABLE ${groups} AS
       SELECT ${[...columns.map((column, i) => `${column} AS ${keys[i]}`), '"__day"'].join(', ')},
         (sum(n) OVER (ORDER BY ${[...columns, '"__day"'].join(', ')} ROWS UNBOUNDED PRECEDING) - n) // ${Math.max(1, Math.trunc(rowsPerSort))} AS "__group",
         "__first", "__last"
       FROM (SELECT ${[...columns, `${day} AS "__day"`].join(', ')}, count(*) AS n, min(epoch_us(${time})) AS "__first", max(epoch_us(${time})) AS "__last"
             FROM ${stored} WHERE ${present} GROUP BY ALL)`,
    );
    const bounds = (await connection.runAndReadAll(`SELECT "__group", min("__first"), max("__last") FROM ${groups} GROUP BY ALL ORDER BY "__group"`)).getRows();
    const writer = new SeriesFileWriter(fileOf(series.name));
    for (const [group, first, last] of bounds) {
      const matching = [...columns.map((column, i) => `k.${keys[i]} = ${column}`), `k."__day" = ${day}`].join(' AND ');
      // The group's first and last instants let DuckDB pass over files and row groups: a series of no key (rides) runs in time order.
      const within = `${time} BETWEEN make_timestamptz(${BigInt(first as bigint)}) AND make_timestamptz(${BigInt(last as bigint)})`;
      const sql =
        `SELECT ${[...naming, `epoch_us(${time}) AS "__time"`, readList(table.columns)].join(', ')} FROM ${stored} ` +
        `SEMI JOIN (SELECT * FROM ${groups} WHERE "__group" = ${Number(group)}) AS k ON ${matching} ` +
        `WHERE ${present} AND ${within} ORDER BY ${order}`;
      for await (const rows of streamJsonRows(connection, sql)) {
        for (const read of rows) {
          const key = seriesKey(series.columns.map((_, i) => read[`__series${i}`]));
          const rendered = series.resource.render(decode(read), context);
          writer.add(key, Number(read.__time), stringify(rendered), rendered instanceof WrittenJson);
        }
      }
    }
    await connection.run(`DROP TABLE ${groups}`);
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
