import type { ColumnStatistics } from '../../../core/column-statistics.ts';
import { csvSelectList } from '../../../core/db/csv.ts';
import { quoteIdentifier, type Database } from '../../../core/db/duckdb.ts';
import type { Column } from '../../../core/table.ts';

/**
 * A table's column statistics (see core/column-statistics.ts), worked out by DuckDB over its
 * Parquet files: one scan of every column for counts, least and greatest values and estimated
 * distinct values (exact ones a column at a time, see countDistinct); one scan of the columns
 * described by their values, for the top values and the histograms' bins at once (GROUPING SETS,
 * one hash table per column, spilled past the memory limit); and, without a scan, the bins'
 * edges. A histogram's width needs the least and greatest value first, hence two scans, not one.
 * Values are texts as the CSV twins write them: the same SQL (core/db/csv.ts) formats both.
 */

const BINS = 20;
const TOP = 10;
/**
 * Tables of up to this many rows get exact counts of distinct values; larger ones a HyperLogLog
 * estimate (DuckDB's approx_count_distinct: 147 for 187 prices in the tiny sample city),
 * since an exact count holds every distinct value of every column in memory at once.
 */
const EXACT_DISTINCT_UP_TO = 1_000_000;

/**
 * How a column is described: numbers, days and instants by a histogram; texts, codes and booleans
 * by their commonest values; JSON, lists and structured text (JSON or geometry kept as text) by
 * nulls and distinct values alone, since a histogram or the commonest of whole documents says
 * little, and their least and greatest are only an order of texts.
 */
function describedBy(column: Column): 'histogram' | 'top' | 'counts' {
  if (column.meaning === 'structured-text') return 'counts';
  if (column.meaning === 'code') return 'top';
  if (['integer', 'double', 'decimal', 'day', 'instant'].includes(column.kind)) return 'histogram';
  return column.kind === 'varchar' || column.kind === 'boolean' ? 'top' : 'counts';
}

/** A bin's width, m × 10^k units: k < 0 only for doubles. */
interface Width {
  readonly m: number;
  readonly k: number;
}
const widthValue = ({ m, k }: Width) => m * 10 ** k;

/**
 * Numbers of a histogram's scale: what a value is in units (an exact BIGINT, but for doubles), the
 * value `units` stand for (typed as the CSV writes the column), and the round widths a bin may take.
 * Days and instants count from Monday 1970-01-05, so that bins of weeks start on Mondays.
 */
interface Scale {
  units(value: string): string;
  value(units: string): string;
  widths(low: number, high: number): Iterable<Width>;
}

const MONDAY = "DATE '1970-01-05'";
const MONDAY_MS = 4 * 86_400_000;
const DAYS = [1, 2, 7, 14, 28, 56, 91, 182, 364];
const MS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 15e3, 3e4, 6e4, 12e4, 3e5, 6e5, 9e5, 18e5, 36e5, 72e5, 108e5, 216e5, 432e5];

/** The widths of a ladder, then its last times 2, 5, 10, 20, 50…: round figures of the unit. */
function* ladder(start: readonly number[]): Generator<Width> {
  for (const m of start) yield { m, k: 0 };
  const last = start.at(-1)!;
  for (let k = 0; ; k++) for (const m of [2, 5, 10]) yield { m: last * m * 10 ** k, k: 0 };
}

/** 1, 2 and 5 times powers of ten, from a tenth of the width that would give BINS bins. */
function* decimalWidths(low: number, high: number): Generator<Width> {
  const span = high > low ? (high - low) / BINS : Math.abs(low) || 1;
  for (let k = Math.floor(Math.log10(span)) - 1; ; k++) for (const m of [1, 2, 5]) yield { m, k };
}

function scaleOf(column: Column): Scale {
  switch (column.kind) {
    case 'double':
      return { units: (v) => `CAST(${v} AS DOUBLE)`, value: (u) => `CAST(${u} AS DOUBLE)`, widths: decimalWidths };
    case 'decimal': {
      const scale = Number(/,\s*(\d+)\)/.exec(column.sqlType)?.[1] ?? 0);
      // DECIMAL(38,0) times the unit as DECIMAL(38,s) is exact, and written at the column's scale.
      const unit = `CAST(${(10 ** -scale).toFixed(scale)} AS DECIMAL(38,${scale}))`;
      return { units: (v) => `CAST(${v} * ${10 ** scale} AS BIGINT)`, value: (u) => `CAST(${u} AS DECIMAL(38,0)) * ${unit}`, widths: () => ladder([1]) };
    }
    case 'day':
      return { units: (v) => `(${v} - ${MONDAY})`, value: (u) => `CAST(${MONDAY} + CAST(${u} AS INTEGER) AS DATE)`, widths: () => ladder(DAYS) };
    case 'instant':
      return {
        units: (v) => `(epoch_ms(${v}) - ${MONDAY_MS})`,
        value: (u) => `CAST(epoch_ms(CAST(${u} + ${MONDAY_MS} AS BIGINT)) AS TIMESTAMPTZ)`,
        widths: () => ladder([...MS, ...DAYS.map((days) => days * 86_400_000)]),
      };
    default:
      return { units: (v) => `CAST(${v} AS BIGINT)`, value: (u) => u, widths: () => ladder([1]) };
  }
}

/** SQL: bin `i`'s lower edge in units, computed as every edge is, so that values and edges agree exactly. */
const edgeUnits = (i: string, { m, k }: Width) => (k < 0 ? `(CAST((${i}) * ${m} AS DOUBLE) / 1e${-k})` : `((${i}) * ${m * 10 ** k})`);

/**
 * SQL: the bin of a value in units. The division of doubles may land a value on an edge in the bin
 * below (0.3 / 0.1 = 2.999…): it is moved to the bin whose edges hold it.
 */
function binOf(u: string, width: Width): string {
  const q = `CAST(floor(${u} / ${widthValue(width)}) AS BIGINT)`;
  return `(${q} + CAST(${u} >= ${edgeUnits(`${q} + 1`, width)} AS BIGINT) - CAST(${u} < ${edgeUnits(q, width)} AS BIGINT))`;
}

/** The width of about BINS bins from `low`'s to `high`'s, fewer for fewer distinct values. */
function widthFor(scale: Scale, low: number, high: number, distinct: number): Width {
  const bins = Math.max(1, Math.min(BINS, distinct));
  for (const width of scale.widths(low, high)) {
    const w = widthValue(width);
    if (Math.floor(high / w) - Math.floor(low / w) + 1 <= bins) return width;
  }
  throw new Error('unreachable: widths grow without end');
}

/** A query's rows as texts: each column of `columns` (SQL, name, DuckDB type) formatted as the CSV twins write it. */
const asCsvTexts = (columns: readonly { sql: string; name: string; type: string }[], from: string) =>
  `SELECT CAST(COLUMNS(*) AS VARCHAR) FROM (SELECT ${csvSelectList(columns)} FROM (SELECT ${columns.map((c) => `${c.sql} AS ${quoteIdentifier(c.name)}`).join(', ')} FROM ${from}))`;

type Texts = Record<string, string | null>;

/** The statistics of the table whose rows `source` (SQL) gives, its columns declared as `columns`; `rows`, as its manifest counts them. */
export async function describeColumns(
  db: Database,
  source: string,
  columns: Readonly<Record<string, Column>>,
  rows: number,
): Promise<{ rows: number; columns: ColumnStatistics[] }> {
  const declared = Object.entries(columns).map(([name, column], i) => ({ i, name, column, by: describedBy(column), sql: quoteIdentifier(name) }));
  const approximate = rows > EXACT_DISTINCT_UP_TO;

  // 1. Counts, distinct values, least and greatest (for histograms, in units too).
  const firstPass = declared.flatMap(({ i, column, by, sql }) => [
    { sql: `count(${sql})`, name: `${i} values`, type: 'BIGINT' },
    // Columns of top values count theirs in the second scan, exactly; exact counts are below.
    ...(by === 'top' || !approximate ? [] : [{ sql: `approx_count_distinct(${sql})`, name: `${i} distinct`, type: 'BIGINT' }]),
    ...(by === 'counts'
      ? []
      : [
          { sql: `min(${sql})`, name: `${i} min`, type: column.sqlType },
          { sql: `max(${sql})`, name: `${i} max`, type: column.sqlType },
        ]),
    ...(by === 'histogram'
      ? [
          { sql: `min(${scaleOf(column).units(sql)})`, name: `${i} low`, type: 'DOUBLE' },
          { sql: `max(${scaleOf(column).units(sql)})`, name: `${i} high`, type: 'DOUBLE' },
        ]
      : []),
  ]);
  const [first] = await db.rows<Texts>(asCsvTexts([{ sql: 'count(*)', name: 'rows', type: 'BIGINT' }, ...firstPass], `(SELECT * FROM ${source})`));
  const exact = approximate
    ? new Map<number, number>()
    : await countDistinct(
        db,
        source,
        declared.filter((c) => c.by !== 'top'),
      );
  const of = (i: number, what: string) => first![`${i} ${what}`] ?? null;
  const counted = Number(first!.rows);
  const described = declared.map((c) => {
    const values = Number(of(c.i, 'values'));
    const low = Number(of(c.i, 'low'));
    const high = Number(of(c.i, 'high'));
    // An estimate may exceed the values there are.
    const distinct = Math.min(values, exact.get(c.i) ?? Number(of(c.i, 'distinct')));
    const binned = c.by === 'histogram' && values > 0 && Number.isFinite(low) && Number.isFinite(high);
    return { ...c, values, distinct, width: binned ? widthFor(scaleOf(c.column), low, high, distinct) : undefined };
  });

  // 2. The commonest values and the histograms' bins, in one scan: a grouping set per column.
  const grouped = described.filter((c) => c.by === 'top' || c.width);
  const groups = grouped.length ? await countValues(db, source, grouped) : [];
  // Each column's groups, in their order, sorted out in one pass rather than a filter per column.
  const groupsOf = new Map<number, Counted[]>();
  for (const row of groups) {
    const own = groupsOf.get(row.column);
    if (own) own.push(row);
    else groupsOf.set(row.column, [row]);
  }

  // 3. The bins' edges, from the first bin holding a value to the last, empty ones between included.
  const binned = described.filter((c) => c.width);
  const bins = new Map(binned.map((c) => [c.i, (groupsOf.get(c.i) ?? []).map((row) => Number(row.key))]));
  const edges = binned.length
    ? await db.rows<{ column: string; bin: string; edge: string }>(
        binned
          .map((c) => {
            const [from, to] = [Math.min(...bins.get(c.i)!), Math.max(...bins.get(c.i)!) + 1];
            const edge = [{ sql: scaleOf(c.column).value(edgeUnits('i', c.width!)), name: 'edge', type: c.column.sqlType }];
            return `SELECT ${c.i} AS "column", i AS bin, edge FROM (${asCsvTexts([{ sql: 'i', name: 'i', type: 'BIGINT' }, ...edge], `range(${from}, ${to + 1}) AS r(i)`)})`;
          })
          .join(' UNION ALL '),
      )
    : [];
  const edgeOf = new Map(edges.map((row) => [`${row.column} ${row.bin}`, row.edge]));

  return {
    rows: counted,
    columns: described.map((c): ColumnStatistics => {
      const own = groupsOf.get(c.i) ?? [];
      const base = { name: c.name, type: c.column.sqlType, nulls: counted - c.values };
      if (c.by === 'counts') return { ...base, distinct: c.distinct, distinctIsApproximate: approximate };
      const range = { min: of(c.i, 'min'), max: of(c.i, 'max') };
      if (c.by === 'top')
        return { ...base, distinct: own[0]?.distinct ?? 0, distinctIsApproximate: false, ...range, top: own.map(({ key, count }) => ({ value: key, count })) };
      const counts = new Map(own.map((row) => [Number(row.key), row.count]));
      const present = bins.get(c.i) ?? [];
      const histogram = [];
      for (let bin = Math.min(...present); bin <= Math.max(...present); bin++)
        histogram.push({ from: edgeOf.get(`${c.i} ${bin}`)!, to: edgeOf.get(`${c.i} ${bin + 1}`)!, count: counts.get(bin) ?? 0 });
      return { ...base, distinct: c.distinct, distinctIsApproximate: approximate, ...range, histogram };
    }),
  };
}

interface Counted {
  /** The column's place among the table's. */
  readonly column: number;
  /** Its value as the CSV writes it (texts, codes, booleans), or the bin's number. */
  readonly key: string;
  readonly count: number;
  /** The column's distinct non-null values (its groups): exact. */
  readonly distinct: number;
}

/**
 * Exact counts of distinct values, a column at a time: counted in one scan, DuckDB holds every
 * column's distinct values at once (a register's ids and JSON details), which ran a region's
 * register out of memory. Parquet reads only the column each query asks for, so the scans cost
 * little more than one.
 */
async function countDistinct(db: Database, source: string, columns: readonly { i: number; sql: string }[]): Promise<Map<number, number>> {
  const counts = new Map<number, number>();
  for (const { i, sql } of columns) {
    const [row] = await db.rows<{ n: bigint }>(`SELECT count(DISTINCT ${sql}) AS n FROM ${source}`);
    counts.set(i, Number(row!.n));
  }
  return counts;
}

/**
 * A scan grouping by each column on its own: every value of a column of top values, every bin of
 * a histogram's. The commonest TOP values of each are kept, ties by value (in the column's own
 * order: codes as numbers), and every bin. Nulls are left out: they are counted apart. The groups
 * are ranked by one number and one text, not by every column's key: sorting by a dozen mostly
 * null keys took four times as long.
 */
async function countValues(
  db: Database,
  source: string,
  columns: readonly { i: number; by: string; column: Column; sql: string; width?: Width }[],
): Promise<Counted[]> {
  const key = (c: (typeof columns)[number]) => quoteIdentifier(`k ${c.i}`);
  const units = columns.map((c) => (c.width ? `${scaleOf(c.column).units(c.sql)} AS ${quoteIdentifier(`u ${c.i}`)}` : `${c.sql} AS ${key(c)}`));
  const keys = columns.map((c) => (c.width ? `${binOf(quoteIdentifier(`u ${c.i}`), c.width)} AS ${key(c)}` : key(c)));
  const which = columns.map((c) => `WHEN GROUPING(${key(c)}) = 0 THEN ${c.i}`).join(' ');
  const numbered = columns.filter((c) => c.width || c.column.kind === 'integer');
  const bins = columns.filter((c) => c.width).map((c) => c.i);
  const rows = await db.rows<{ column: number; key: string; count: bigint; distinct: bigint }>(
    `SELECT "column", "key", "count", count(*) OVER (PARTITION BY "column") AS "distinct"
     FROM (
       SELECT CASE ${which} END AS "column", COALESCE(${columns.map((c) => `CAST(${key(c)} AS VARCHAR)`).join(', ')}) AS "key",
              ${numbered.length ? `COALESCE(${numbered.map((c) => `CAST(${key(c)} AS BIGINT)`).join(', ')})` : 'NULL'} AS "number", count(*) AS "count"
       FROM (SELECT ${keys.join(', ')} FROM (SELECT ${units.join(', ')} FROM ${source}))
       GROUP BY GROUPING SETS (${columns.map((c) => `(${key(c)})`).join(', ')})
     )
     WHERE "key" IS NOT NULL
     QUALIFY row_number() OVER (PARTITION BY "column" ORDER BY "count" DESC, "number", "key") <= ${TOP}${bins.length ? ` OR "column" IN (${bins.join(', ')})` : ''}
     ORDER BY "column", "count" DESC, "number", "key"`,
  );
  return rows.map((row) => ({ column: Number(row.column), key: row.key, count: Number(row.count), distinct: Number(row.distinct) }));
}
