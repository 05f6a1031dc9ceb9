import { csvCopyOptions, csvSelectList } from '../../core/db/csv.ts';
import { quoteString } from '../../core/db/duckdb.ts';

/**
 * A query's result written by DuckDB itself, `COPY (…) TO file`, so that rows never pass through
 * JS: how `odsnap sql` writes Parquet and CSV of any size.
 */

/** A column of a query's result. */
export interface SqlColumn {
  readonly name: string;
  /** DuckDB type, e.g. VARCHAR, TIMESTAMP WITH TIME ZONE, DECIMAL(15,2). */
  readonly type: string;
}

export interface CopyTarget {
  /** Where DuckDB writes: a file the sandbox was opened to allow writing. */
  readonly path: string;
  readonly format: 'csv' | 'parquet';
  /** CSV only: gzip-compressed. */
  readonly gzip?: boolean;
  /** Parquet only: rows per row group, DuckDB's default (122,880) unless given. DuckDB writes a row group at a time. */
  readonly rowGroupRows?: number;
}

/**
 * The user's text as a subquery: trailing semicolons and blanks dropped, and the closing
 * parenthesis on a line of its own, so that a trailing `-- comment` cannot swallow it. The text
 * must already be known to be exactly one SELECT (SqlSandbox checks): a statement that parses on
 * its own has its parentheses balanced and its strings and comments closed, so it cannot reach
 * past its parentheses. As a subquery, SHOW, DESCRIBE and SUMMARIZE are written too.
 */
export const asSubquery = (sql: string) => `(\n${sql.replace(/[\s;]+$/, '')}\n) AS odsnap_query`;

/**
 * The texts before a semicolon that only comments follow (`SELECT …; -- all rows`), where
 * asSubquery would keep the semicolon: the last such semicolon first. Guesses by the text alone
 * (a semicolon may be inside a string): the caller takes the first DuckDB reads as the same query.
 */
export function beforeTrailingComments(sql: string): string[] {
  const texts: string[] = [];
  for (let at = sql.lastIndexOf(';'); at >= 0 && texts.length < 4; at = sql.lastIndexOf(';', at - 1)) {
    if (/^;(?:\s|;|--[^\n]*|\/\*[^]*?\*\/)*$/.test(sql.slice(at))) texts.push(sql.slice(0, at));
  }
  return texts;
}

/**
 * The COPY statement writing the query's result to the target: Parquet with zstd, or CSV in the
 * conventions of core/db/csv.ts (ISO instants in UTC, lists and structs as JSON), at most `limit`
 * rows when given.
 */
export function copyStatement(sql: string, columns: readonly SqlColumn[], target: CopyTarget, limit?: number): string {
  const select = target.format === 'csv' ? csvSelectList(columns) : '*';
  const options = target.format === 'csv' ? csvCopyOptions(target.gzip) : `FORMAT parquet, COMPRESSION zstd${target.rowGroupRows ? `, ROW_GROUP_SIZE ${target.rowGroupRows}` : ''}`;
  // DuckDB would write over an existing file through a temporary one beside it, which the sandbox does not allow: the file is new anyway.
  return `COPY (SELECT ${select} FROM ${asSubquery(sql)}${limit === undefined ? '' : ` LIMIT ${limit}`}) TO ${quoteString(target.path)} (${options}, USE_TMP_FILE false)`;
}

/**
 * Why writing a result to a file may have failed, when a column's type is one the format may not
 * hold (a far timestamp in seconds, …): the reason with those columns named. Not for a stop or
 * running out of memory, which are what they say (and a query out of memory beside another runs
 * again alone only when it is known as such).
 */
export function typeHint(reason: string, columns: readonly { name: string; type: string }[], format: string): string | undefined {
  const named = columns.filter((column) => !PLAIN_TYPE.test(column.type)).map((column) => `${JSON.stringify(column.name)} (${column.type})`);
  if (!named.length || /^(INTERRUPT|Out of Memory Error)/i.test(reason)) return undefined;
  return `${reason}; of the columns, ${named.join(', ')} may not fit ${format === 'csv' ? 'CSV' : 'Parquet'}: cast to VARCHAR`;
}

/** Types every format holds as they are; a column of another type is named when writing a file fails. */
const PLAIN_TYPE = /^(BOOLEAN|U?(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT)|FLOAT|DOUBLE|DECIMAL\(\d+,\d+\)|VARCHAR|DATE|TIMESTAMP|TIMESTAMP WITH TIME ZONE|BLOB|UUID)$/;
