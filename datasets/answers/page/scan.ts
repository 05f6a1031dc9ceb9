import type { Column } from '../../../core/table.ts';
import { boundAtScale, decimalScale, isComparison, type Comparison, type Filter } from './filters.ts';

/**
 * A paged table's plain filter columns (codes, days, prices, areas) as typed arrays in the server's
 * own process, one number per row in list order, so that a page of the register's usual filters,
 * and its exact total, is found by a loop over them with no DuckDB statement: a statement's
 * planning and threads cost a page of transactions more than the scan itself. Only what maps
 * exactly onto numbers is kept, and a request is scanned only when every filter it gives is
 * one of these with a value read the way DuckDB's cast reads it; anything else (lists, text
 * search, boxes, a bound these numbers cannot hold) goes to DuckDB, so the two never disagree.
 */

/** A column's values as numbers: NULL is NaN in a Float64Array and NULL_INT in an Int32Array. */
export interface ScannedColumn {
  readonly column: Column;
  readonly values: Int32Array | Float64Array;
  /** For a text column: the number each value stands for (only `equals` reads text). */
  readonly codes?: ReadonlyMap<string, number>;
}

/** NULL in an Int32Array: below every range's lower end (see lowOf), so no test holds it. */
const NULL_INT = -0x80000000;
/** Text columns with more distinct values than this (ids) are left to DuckDB. */
export const MAX_CODES = 0xffff;
/** Decimals as integers of their smallest unit stay exact in a double below this. */
const EXACT = Number.MAX_SAFE_INTEGER;

/** How a scanned column is read from DuckDB, as numbers (or text for a text column), undefined if it is not scanned. */
export function scannedSql(name: string, column: Column): string | undefined {
  switch (column.kind) {
    case 'integer':
      return INTEGER_RANGES[column.sqlType] ? `CAST(${name} AS DOUBLE)` : undefined;
    case 'boolean':
      return `CAST(${name} AS DOUBLE)`;
    case 'day':
      return `CAST(date_diff('day', DATE '1970-01-01', ${name}) AS DOUBLE)`;
    case 'decimal': {
      const scale = scaleOf(column);
      // In the column's smallest units (a price in grosze): whole numbers, exact as doubles (see ScannedColumnBuilder).
      return scale === undefined ? undefined : `CAST(${name} * ${10 ** scale} AS DOUBLE)`;
    }
    case 'varchar':
      return name;
    default:
      // Doubles compare NaN unlike JS; instants, lists and JSON are not plain numbers.
      return undefined;
  }
}

/** A decimal column's scale, when a parameter cast to DECIMAL(19,4) (castParam) compares with it exactly. */
const scaleOf = (column: Column): number | undefined => {
  const scale = decimalScale(column);
  return scale !== undefined && scale <= 4 ? scale : undefined;
};

/** Collects one column's values, chunk by chunk, as `scannedSql` reads them. */
export class ScannedColumnBuilder {
  private ints: Int32Array | undefined;
  private floats: Float64Array | undefined;
  private readonly codes = new Map<string, number>();
  private length = 0;
  private failed = false;

  constructor(
    readonly column: Column,
    rows: number,
  ) {
    // Codes, days and integers fit 32 bits; a decimal's smallest units (a price in grosze) may not.
    if (column.kind === 'decimal') this.floats = new Float64Array(rows);
    else this.ints = new Int32Array(rows);
  }

  add(value: unknown): void {
    if (this.failed) return;
    const at = this.length++;
    if (value === null || value === undefined) {
      if (this.ints) this.ints[at] = NULL_INT;
      else this.floats![at] = NaN;
      return;
    }
    let number: number;
    if (this.column.kind === 'varchar') {
      let code = this.codes.get(value as string);
      if (code === undefined) this.codes.set(value as string, (code = this.codes.size));
      if (this.codes.size > MAX_CODES) {
        this.fail();
        return;
      }
      number = code;
    } else number = value as number;
    if (this.ints) {
      if (!Number.isInteger(number) || number <= NULL_INT || number > 0x7fffffff) {
        this.fail();
        return;
      }
      this.ints[at] = number;
    } else {
      if (!Number.isInteger(number) || Math.abs(number) > EXACT) {
        this.fail();
        return;
      }
      this.floats![at] = number;
    }
  }

  private fail(): void {
    this.failed = true;
    this.ints = this.floats = undefined;
    this.codes.clear();
  }

  /** The column, or undefined when its values do not map exactly onto numbers (then DuckDB filters it). */
  done(): ScannedColumn | undefined {
    const values = this.ints ?? this.floats;
    if (this.failed || !values || this.length !== values.length) return undefined;
    return { column: this.column, values, ...(this.column.kind === 'varchar' ? { codes: this.codes } : {}) };
  }
}

/** An inclusive range of one column's numbers that a row must be in. */
interface Range {
  readonly values: Int32Array | Float64Array;
  low: number;
  high: number;
}

export interface ScannedPage {
  /** Row numbers of the page's rows, in list order. */
  readonly rows: number[];
  readonly total: number;
}

/** A paged table's scanned columns, by name, and a page of them under a request's filters. */
export class RowScan {
  /** The matching rows of the request being answered (requests are scanned one at a time). */
  private readonly matches: Int32Array;

  constructor(
    readonly rowCount: number,
    private readonly columns: ReadonlyMap<string, ScannedColumn>,
  ) {
    this.matches = new Int32Array(rowCount);
  }

  /**
   * The page's rows and the total matching, or undefined when a given filter is not one this
   * scan answers exactly (the request then goes to DuckDB).
   */
  page(filters: Readonly<Record<string, Filter>>, params: Readonly<Record<string, unknown>>, limit: number, offset: number): ScannedPage | undefined {
    const ranges = new Map<string, Range>();
    for (const [param, filter] of Object.entries(filters)) {
      const value = params[param];
      if (value === undefined) continue;
      if (!isComparison(filter)) return undefined;
      const scanned = this.columns.get(filter.column);
      if (!scanned) return undefined;
      let range = ranges.get(filter.column);
      if (!range) ranges.set(filter.column, (range = { values: scanned.values, low: -Infinity, high: Infinity }));
      if (!narrow(range, scanned, filter.kind, value)) return undefined;
    }
    const tests = [...ranges.values()];
    if (tests.some((r) => !(r.low <= r.high))) return { rows: [], total: 0 };
    if (tests.length === 0) return { rows: rowNumbers(offset, Math.min(this.rowCount, offset + limit)), total: this.rowCount };
    const total = this.select(tests);
    const rows: number[] = [];
    for (let i = offset; i < total && i < offset + limit; i++) rows.push(this.matches[i]!);
    return { rows, total };
  }

  /**
   * Fills `matches` with the rows in every range, in row order; returns how many there are. The
   * loops do not branch on a row's test (each row is written, and kept by counting it): codes and
   * prices fall in no order a processor could predict, and a mispredicted branch per row made a
   * scan of the city's transactions 3–5 times slower.
   */
  private select(tests: Range[]): number {
    const { matches, rowCount } = this;
    const [first, ...rest] = tests as [Range, ...Range[]];
    let count = 0;
    {
      const { values, high } = first;
      const low = lowOf(first);
      for (let row = 0; row < rowCount; row++) {
        const v = values[row]!;
        matches[count] = row;
        count += +(v >= low) & +(v <= high);
      }
    }
    for (const test of rest) {
      const { values, high } = test;
      const low = lowOf(test);
      let kept = 0;
      for (let i = 0; i < count; i++) {
        const row = matches[i]!;
        const v = values[row]!;
        matches[kept] = row;
        kept += +(v >= low) & +(v <= high);
      }
      count = kept;
    }
    return count;
  }
}

/** A range's lower end as compared: NULL fails every test, as NaN in a Float64Array and as NULL_INT, below this end, in an Int32Array. */
const lowOf = (range: Range) => (range.values instanceof Int32Array ? Math.max(range.low, NULL_INT + 1) : range.low);

const rowNumbers = (from: number, to: number) => Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);

/** Narrows a column's range by one filter's value; false when the value is not read here exactly as DuckDB would cast it. */
function narrow(range: Range, scanned: ScannedColumn, kind: Comparison['kind'], value: unknown): boolean {
  const column = scanned.column;
  let low: number | undefined;
  let high: number | undefined;
  if (column.kind === 'varchar') {
    if (kind !== 'equals' || typeof value !== 'string') return false;
    // A text no row holds matches nothing: an empty range.
    low = high = scanned.codes!.get(value) ?? NaN;
  } else {
    const bound = kind === 'equals' ? exactNumber(column, value) : boundNumber(column, value, kind === 'atLeast' ? 'up' : 'down');
    if (bound === undefined) return false;
    if (kind !== 'atMost') low = bound;
    if (kind !== 'atLeast') high = bound;
  }
  if (low !== undefined) range.low = Math.max(range.low, low);
  if (high !== undefined) range.high = Math.min(range.high, high);
  // NaN (a text no row holds, or a decimal finer than its column) empties the range.
  if (Number.isNaN(low) || Number.isNaN(high)) range.low = NaN;
  return true;
}

/** A value as the column's number, for equality: NaN when no stored value can equal it, undefined when unsure. */
const exactNumber = (column: Column, value: unknown): number | undefined =>
  column.kind === 'decimal' ? decimalUnits(column, value) : plainNumber(column, value);

/** A bound as the column's number, rounded as the SQL path rounds it (boundAtScale), undefined when unsure. */
function boundNumber(column: Column, value: unknown, toward: 'up' | 'down'): number | undefined {
  if (column.kind === 'decimal') return typeof value === 'string' ? decimalUnits(column, boundAtScale(column, value, toward)) : undefined;
  return plainNumber(column, value);
}

/** Integer types whose values a scanned column holds exactly (see ScannedColumnBuilder), and their ranges. */
const INTEGER_RANGES: Readonly<Record<string, readonly [number, number]>> = {
  TINYINT: [-128, 127],
  SMALLINT: [-32_768, 32_767],
  INTEGER: [-0x7fffffff, 0x7fffffff],
  UTINYINT: [0, 255],
  USMALLINT: [0, 65_535],
};

function plainNumber(column: Column, value: unknown): number | undefined {
  switch (column.kind) {
    case 'integer': {
      // Whole numbers in the column's type only: DuckDB casts anything else its own way (rounding, or an error).
      const [min, max] = INTEGER_RANGES[column.sqlType] ?? [0, -1];
      return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max ? value : undefined;
    }
    case 'boolean':
      return typeof value === 'boolean' ? Number(value) : undefined;
    case 'day': {
      if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return undefined;
      const time = Date.parse(`${value}T00:00:00Z`);
      // A date that does not exist (2025-02-30) is DuckDB's to refuse.
      return Number.isNaN(time) || new Date(time).toISOString().slice(0, 10) !== value ? undefined : time / 86_400_000;
    }
    default:
      return undefined;
  }
}

/**
 * A decimal text in the column's smallest units. DuckDB casts a parameter to DECIMAL(19,4): a
 * text with more than 4 fraction digits or 15 whole ones is left to it; one with non-zero digits
 * past the column's scale equals no stored value (NaN).
 */
function decimalUnits(column: Column, value: unknown): number | undefined {
  const scale = scaleOf(column);
  const parts = typeof value === 'string' ? /^(-?)(\d{1,15})(?:\.(\d{1,4}))?$/.exec(value) : null;
  if (scale === undefined || !parts) return undefined;
  const [, sign, whole, fraction = ''] = parts as unknown as [string, string, string, string?];
  if (/[1-9]/.test(fraction.slice(scale))) return NaN;
  // Beyond 2^53 the double rounds, but keeps its order against every stored value, all below it.
  const units = Number(BigInt(whole + fraction.slice(0, scale).padEnd(scale, '0')));
  return sign ? -units : units;
}
