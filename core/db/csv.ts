import { quoteIdentifier } from './duckdb.ts';

/**
 * CSV as the tools that read it expect, whatever DuckDB would write by default: instants in ISO
 * 8601 with milliseconds in UTC (`2024-05-01T06:00:00.000Z`, not `2024-05-01 08:00:00+02`),
 * and lists, structs, maps and JSON as JSON text (`["a","b"]`, not `[a, b]`). Spreadsheets,
 * pandas and Frictionless Table Schema (`array`, `any`, and the datetime format below) read
 * these as written. Both the downloads' CSV files and `odsnap sql --format csv` use it.
 */

/** The Table Schema `format` of instants written so (Python's strptime notation, 3-digit %f). */
export const CSV_INSTANT_FORMAT = '%Y-%m-%dT%H:%M:%S.%fZ';

export interface CsvColumn {
  readonly name: string;
  /** DuckDB type, as DESCRIBE gives it or a column declares it, e.g. TIMESTAMP WITH TIME ZONE, VARCHAR[]. */
  readonly type: string;
}

const nested = (type: string) => type === 'JSON' || type.endsWith(']') || /^(STRUCT|MAP|UNION)\b/.test(type);

/** One column as CSV text: the SQL expression, named as the column. */
function csvValue({ name, type }: CsvColumn): string {
  const column = quoteIdentifier(name);
  const upper = type.toUpperCase();
  if (upper === 'TIMESTAMPTZ' || upper === 'TIMESTAMP WITH TIME ZONE') return `strftime(timezone('UTC', ${column}), '%Y-%m-%dT%H:%M:%S.%gZ') AS ${column}`;
  if (upper === 'TIMESTAMP' || upper === 'TIMESTAMP_S' || upper === 'TIMESTAMP_MS')
    return `strftime(CAST(${column} AS TIMESTAMP), '%Y-%m-%dT%H:%M:%S.%g') AS ${column}`;
  if (upper === 'TIMESTAMP_NS') return `strftime(${column}, '%Y-%m-%dT%H:%M:%S.%n') AS ${column}`;
  if (upper === 'JSON') return `CAST(${column} AS VARCHAR) AS ${column}`;
  if (nested(upper)) return `CAST(to_json(${column}) AS VARCHAR) AS ${column}`;
  return column;
}

/** The SELECT list that turns rows of these columns into CSV text, in their order. */
export const csvSelectList = (columns: readonly CsvColumn[]) => columns.map(csvValue).join(', ');

/** The COPY options of a CSV file with a header line, gzip-compressed when asked. */
export const csvCopyOptions = (gzip = false) => `FORMAT csv, HEADER true${gzip ? ', COMPRESSION gzip' : ''}`;
