import { StatementType, type DuckDBConnection, type DuckDBPreparedStatement } from '@duckdb/node-api';
import { csvCopyOptions, csvSelectList } from '../../core/db/csv.ts';
import { quoteString } from '../../core/db/duckdb.ts';
import { SqlRefused, type SqlLimits } from './limits.ts';

/**
 * A query's result written by DuckDB itself, `COPY (…) TO file`, so that rows never pass through
 * JS: how `odsnap sql` writes Parquet and CSV of any size.
 */

/**
 * How far a running query is, as DuckDB estimates it. (DuckDB also counts "rows processed", but in
 * units of its own: 58,000 of them for the 5 million rides of six Parquet files.)
 */
export interface QueryProgress {
  /** 0–100, or -1 when DuckDB cannot tell. */
  readonly percentage: number;
}

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
    if (/^;(?:\s|;|--[^\n]*|\/\*[\s\S]*?\*\/)*$/.test(sql.slice(at))) texts.push(sql.slice(0, at));
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
  const options =
    target.format === 'csv'
      ? csvCopyOptions(target.gzip)
      : `FORMAT parquet, COMPRESSION zstd${target.rowGroupRows ? `, ROW_GROUP_SIZE ${target.rowGroupRows}` : ''}`;
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
const PLAIN_TYPE =
  /^(BOOLEAN|U?(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT)|FLOAT|DOUBLE|DECIMAL\(\d+,\d+\)|VARCHAR|DATE|TIMESTAMP|TIMESTAMP WITH TIME ZONE|BLOB|UUID)$/;

/** Whether DuckDB reads `sql` as one SELECT with these columns. */
async function sameQuery(connection: DuckDBConnection, sql: string, columns: readonly SqlColumn[]): Promise<boolean> {
  try {
    const statements = await connection.extractStatements(sql);
    if (statements.count !== 1) return false;
    const prepared = await statements.prepare(0);
    return (
      prepared.statementType === StatementType.SELECT &&
      prepared.columnCount === columns.length &&
      columns.every((column, i) => prepared.columnName(i) === column.name && prepared.columnType(i).toString() === column.type)
    );
  } catch {
    return false;
  }
}

/**
 * Has DuckDB write the result of `sql` (one SELECT, prepared on `connection` with these columns)
 * to the target, at most limits.maxRows rows and one more (then refused); answers the rows written.
 */
export async function writeResult(
  connection: DuckDBConnection,
  sql: string,
  columns: readonly SqlColumn[],
  target: CopyTarget,
  limits: SqlLimits,
  onProgress?: (progress: QueryProgress) => void,
): Promise<{ rows: number; columns: readonly SqlColumn[] }> {
  // A subquery's columns are known by name regardless of case: "A" would be read as "a".
  const lower = columns.map((column) => column.name.toLowerCase());
  const twin = columns.find((_, i) => lower.indexOf(lower[i]!) !== i);
  if (twin)
    throw new SqlRefused(
      `two columns are named ${columns
        .filter((column) => column.name.toLowerCase() === twin.name.toLowerCase())
        .map((column) => JSON.stringify(column.name))
        .join(' and ')}, one name to DuckDB; give each its own name with AS`,
    );
  let query = sql;
  for (const text of beforeTrailingComments(sql)) {
    if (!(await sameQuery(connection, text, columns))) continue;
    query = text;
    break;
  }
  const text = copyStatement(query, columns, target, Number.isFinite(limits.maxRows) ? limits.maxRows + 1 : undefined);
  let copy: DuckDBPreparedStatement;
  try {
    const statements = await connection.extractStatements(text);
    if (statements.count !== 1) throw new Error(`it reads as ${statements.count} statements`);
    copy = await statements.prepare(0);
  } catch (error) {
    const reason = (error as Error).message.split('\n')[0]!.replace(/^Failed to extract statements: /, '');
    if (!/^Parser Error/.test(reason)) throw error;
    // SHOW, DESCRIBE and SUMMARIZE can be written as a subquery; PRAGMA cannot.
    throw new SqlRefused(`DuckDB cannot write this query to a file (${reason}); write it as a SELECT (PRAGMA name as SELECT * FROM pragma_name())`);
  }
  // The user's text was checked to be one SELECT, and is wrapped so that it cannot be more: this is only a second look.
  if (copy.statementType !== StatementType.COPY) throw new SqlRefused(`this query cannot be written to a file`);
  const poll = onProgress
    ? setInterval(() => {
        onProgress({ percentage: connection.progress.percentage });
      }, 200)
    : undefined;
  try {
    const result = await copy.runAndReadAll().catch((error: Error) => {
      const hint = typeHint(error.message.split('\n')[0]!, columns, target.format);
      throw hint ? new SqlRefused(hint) : error;
    });
    const rows = Number(result.getRowsJS()[0]![0]);
    if (rows > limits.maxRows) throw new SqlRefused(`the result has more than ${limits.maxRows} rows; add a LIMIT or aggregate`, 'rows');
    return { rows, columns };
  } finally {
    clearInterval(poll);
  }
}
