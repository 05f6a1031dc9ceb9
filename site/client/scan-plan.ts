/**
 * What a query reads of each table, from DuckDB's own plan of it (`EXPLAIN (FORMAT JSON)` over
 * the tables' schemas): the columns each scan projects or filters on, and the filters DuckDB
 * pushes into it. Files are skipped by the downloads catalogue (partition values, the time
 * column's range) and row groups by their Parquet statistics, wherever a filter proves that no
 * row of them can match. Everything here errs one way: a filter it cannot read skips nothing.
 * DuckDB still applies every filter to the rows loaded, so reading more than needed is only
 * slower, never wrong.
 */

/** A value as compared here: text for VARCHAR, a number for numbers, ms since 1970 (UTC) for days and instants. */
export type Comparable = string | number;

/** One condition a row must meet: `column op value`, or `column IN (values)`. */
export type Condition =
  | { readonly column: string; readonly op: '=' | '<' | '<=' | '>' | '>='; readonly value: Comparable }
  | { readonly column: string; readonly op: 'in'; readonly values: readonly Comparable[] };

/** One scan of a table in the plan: the columns it needs and the conditions every row it keeps meets. */
export interface Scan {
  readonly table: string;
  /** undefined: every column (a scan whose projections the plan does not list). */
  readonly columns: ReadonlySet<string> | undefined;
  readonly conditions: readonly Condition[];
}

/** A column's DuckDB type in the browser (see parquet-table.ts browserType), by name. */
export type ColumnTypes = ReadonlyMap<string, string>;

interface PlanNode {
  readonly name?: string;
  readonly children?: readonly PlanNode[];
  readonly extra_info?: Readonly<Record<string, string | readonly string[]>>;
}

const listOf = (value: string | readonly string[] | undefined): readonly string[] =>
  value === undefined ? [] : typeof value === 'string' ? (value ? [value] : []) : value;

/** Text to match as it is in a regular expression. */
export const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The table's columns named in a piece of plan text, as a word or a quoted identifier. */
function columnsIn(text: string, types: ColumnTypes): string[] {
  return [...types.keys()].filter((name) =>
    new RegExp(`(^|[^\\w"])(${escapeRegExp(name)}|"${escapeRegExp(name.replaceAll('"', '""'))}")($|[^\\w"])`).test(text),
  );
}

/** Every scan of a table of `tables` in a plan (the JSON EXPLAIN (FORMAT JSON) gives). */
export function scansOf(planJson: string, tables: ReadonlyMap<string, ColumnTypes>): Scan[] {
  const scans: Scan[] = [];
  const visit = (node: PlanNode) => {
    const info = node.extra_info ?? {};
    const table = typeof info.Table === 'string' ? info.Table : undefined;
    const types = table === undefined ? undefined : tables.get(table);
    if (table !== undefined && types) {
      const filters = listOf(info.Filters);
      const projections = 'Projections' in info ? listOf(info.Projections) : undefined;
      const columns = projections === undefined ? undefined : new Set([...projections, ...filters].flatMap((text) => columnsIn(text, types)));
      scans.push({ table, columns, conditions: filters.flatMap((filter) => conditionsOf(filter, types)) });
    }
    for (const child of node.children ?? []) visit(child);
  };
  for (const node of JSON.parse(planJson) as PlanNode[]) visit(node);
  return scans;
}

/** A filter's text split at its top-level ANDs (outside quotes and parentheses). */
function conjuncts(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted: string | undefined;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quoted) {
      if (char === quoted) quoted = undefined;
    } else if (char === "'" || char === '"') quoted = char;
    else if (char === '(') depth++;
    else if (char === ')') depth--;
    else if (depth === 0 && text.startsWith(' AND ', i)) {
      parts.push(text.slice(start, i));
      start = i + 5;
      i += 4;
    }
  }
  parts.push(text.slice(start));
  return parts.map((part) => part.trim());
}

const IDENTIFIER = String.raw`([A-Za-z_][\w]*|"(?:[^"]|"")+")`;
const LITERAL = String.raw`('(?:[^']|'')*'(?:::[A-Z][A-Z ]*(?:\(\d+,\s*\d+\))?)?|-?\d+(?:\.\d+)?(?:e[+-]?\d+)?)`;
const COMPARISON = new RegExp(`^(?:optional: )?${IDENTIFIER}\\s*(=|<=|>=|<|>)\\s*${LITERAL}$`);
const IN_LIST = new RegExp(`^(?:optional: )?${IDENTIFIER} IN \\((${LITERAL}(?:, ${LITERAL})*)\\)$`);

const unquote = (identifier: string) => (identifier.startsWith('"') ? identifier.slice(1, -1).replaceAll('""', '"') : identifier);

/** A day or an instant as DuckDB writes it ('2024-05-01', '2024-05-01 06:00:00.5') as ms since 1970, UTC. */
export function instantMs(text: string): number | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2}):(\d{2})(\.\d+)?)?(Z|\+00(?::?00)?)?$/.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour = '0', minute = '0', second = '0', fraction = ''] = match;
  return Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second)) + (fraction ? Number(fraction) * 1000 : 0);
}

/** What values of a type compare as here; undefined: not compared (decimals, lists, …). */
function kindOf(type: string): 'text' | 'number' | 'time' | undefined {
  if (type === 'VARCHAR') return 'text';
  if (/^(U?(TINYINT|SMALLINT|INTEGER|BIGINT)|DOUBLE|FLOAT)$/.test(type)) return 'number';
  if (type === 'DATE' || type === 'TIMESTAMP') return 'time';
  return undefined;
}

/** A literal of the plan as a value of the column's kind. */
function literalOf(literal: string, type: string): Comparable | undefined {
  const kind = kindOf(type);
  const text = literal.startsWith("'") ? literal.slice(1, literal.lastIndexOf("'")).replaceAll("''", "'") : undefined;
  if (kind === 'text') return text;
  if (kind === 'number') {
    const value = Number(text ?? literal);
    return Number.isFinite(value) ? value : undefined;
  }
  if (kind === 'time' && text !== undefined) return instantMs(text);
  return undefined;
}

/** The conditions of one pushed-down filter that can be read; the rest are left to DuckDB alone. */
export function conditionsOf(filter: string, types: ColumnTypes): Condition[] {
  const conditions: Condition[] = [];
  for (const part of conjuncts(filter)) {
    const comparison = COMPARISON.exec(part);
    if (comparison) {
      const column = unquote(comparison[1]!);
      const type = types.get(column);
      const value = type === undefined ? undefined : literalOf(comparison[3]!, type);
      if (value !== undefined) conditions.push({ column, op: comparison[2] as '=' | '<' | '<=' | '>' | '>=', value });
      continue;
    }
    const list = IN_LIST.exec(part);
    if (list) {
      const column = unquote(list[1]!);
      const type = types.get(column);
      const literals = list[2]!.match(new RegExp(LITERAL, 'g')) ?? [];
      const values = type === undefined ? [] : literals.map((literal) => literalOf(literal, type));
      if (values.length && values.every((value) => value !== undefined)) conditions.push({ column, op: 'in', values: values as Comparable[] });
    }
  }
  return conditions;
}

/** The smallest and largest value of a column in a file or row group; either may be unknown. */
export interface ValueRange {
  readonly min?: Comparable;
  readonly max?: Comparable;
}

/** Whether a value in the range can meet the condition (true whenever that cannot be ruled out). */
export function mayMeet(condition: Condition, { min, max }: ValueRange): boolean {
  const comparable = (value: Comparable, bound: Comparable | undefined) => bound !== undefined && typeof bound === typeof value;
  const within = (value: Comparable) => !(comparable(value, min) && value < min!) && !(comparable(value, max) && value > max!);
  switch (condition.op) {
    case 'in':
      return condition.values.some(within);
    case '=':
      return within(condition.value);
    case '<':
      return !(comparable(condition.value, min) && min! >= condition.value);
    case '<=':
      return !(comparable(condition.value, min) && min! > condition.value);
    case '>':
      return !(comparable(condition.value, max) && max! <= condition.value);
    case '>=':
      return !(comparable(condition.value, max) && max! < condition.value);
  }
}

/** Whether a scan may keep a row of a part (a file or a row group) whose columns span these ranges. */
export const scanMayRead = (scan: Scan, ranges: (column: string) => ValueRange | undefined) =>
  scan.conditions.every((condition) => {
    const range = ranges(condition.column);
    return !range || mayMeet(condition, range);
  });

/** A file as the downloads catalogue lists it. */
export interface CatalogueFile {
  readonly url: string;
  readonly rows: number;
  readonly bytes: number;
  readonly partition: Readonly<Record<string, string>>;
  /** The range of the table's time column in the file (a day or an ISO instant). */
  readonly min: string | null;
  readonly max: string | null;
}

/** A partition of a table: a folder level named `name`, of the column's value, or of a part of it (year, month). */
export interface CataloguePartition {
  readonly name: string;
  readonly column: string;
  readonly part?: string;
}

/**
 * The ranges the catalogue knows of a file's columns: a partition by a column's whole value fixes
 * it (counter=pulawska), and the time column's range is listed. Partitions by part of a value
 * (year=2024) say no more than that range, so they are not read.
 */
export function fileRanges(
  file: CatalogueFile,
  partitionBy: readonly CataloguePartition[],
  timeColumn: string | null | undefined,
  types: ColumnTypes,
): (column: string) => ValueRange | undefined {
  return (column) => {
    const partition = partitionBy.find((candidate) => candidate.column === column && !candidate.part);
    const type = types.get(column);
    if (partition && type !== undefined && file.partition[partition.name] !== undefined) {
      const value = literalOf(`'${file.partition[partition.name]!.replaceAll("'", "''")}'`, type);
      if (value !== undefined) return { min: value, max: value };
    }
    if (column === timeColumn && file.min !== null && file.max !== null) {
      const min = instantMs(file.min);
      const max = instantMs(file.max);
      if (min !== undefined && max !== undefined) return { min, max };
    }
    return undefined;
  };
}

/** A statistic of a Parquet column chunk (as hyparquet gives it) as a value compared here. */
export function statisticValue(value: unknown, type: string, end: 'min' | 'max'): Comparable | undefined {
  const kind = kindOf(type);
  if (value === null || value === undefined || kind === undefined) return undefined;
  if (kind === 'text') return typeof value === 'string' ? value : undefined;
  if (kind === 'number') return typeof value === 'number' || typeof value === 'bigint' ? Number(value) : undefined;
  // Instants come in ms: a maximum in µs rounds down, so it is taken 1 ms later.
  if (!(value instanceof Date)) return undefined;
  return end === 'max' ? value.getTime() + 1 : value.getTime();
}
