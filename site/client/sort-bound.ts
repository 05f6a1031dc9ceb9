import { columnTypes, type CatalogueTable } from './downloads-catalogue.ts';
import { eachAtOnce, type PublishedFiles } from './published-files.ts';
import { statisticValue, type Comparable } from './scan-plan.ts';
import { timestampText } from './sql-result.ts';

/**
 * A bound on a sorted page of a whole table, from its row groups' statistics alone (their footers,
 * which the page reads anyway): a value that at least the page's last row reaches. Row groups
 * whose every value lies past it cannot hold a row of the page, so asking first for the sort
 * column's values within it reads that column of a few row groups, not of the whole table.
 * Descending, it is the least minimum among the row groups of highest minimum that hold enough
 * non-NULL rows between them; ascending, the greatest maximum likewise. Undefined when a row
 * group lacks the statistics, or the column's type has none this page can read (decimals, lists).
 */
export async function statisticsBound(
  table: CatalogueTable,
  files: PublishedFiles,
  column: string,
  descending: boolean,
  rowsNeeded: number,
): Promise<string | undefined> {
  const type = columnTypes(table).get(column);
  if (!type) return undefined;
  const end = descending ? 'min' : 'max';
  const groups: { value: Comparable | undefined; rows: number }[] = [];
  await eachAtOnce(table.files, async (file) => {
    for (const group of (await files(file).metadata).row_groups) {
      const chunk = group.columns.find((candidate) => candidate.meta_data?.path_in_schema.join('.') === column);
      const stats = chunk?.meta_data?.statistics;
      const nulls = stats?.null_count;
      const value = stats ? statisticValue(end === 'min' ? (stats.min_value ?? stats.min) : (stats.max_value ?? stats.max), type, end) : undefined;
      groups.push({ value, rows: nulls === undefined ? Number.NaN : Number(group.num_rows) - Number(nulls) });
    }
  });
  if (groups.some((group) => group.value === undefined || Number.isNaN(group.rows))) return undefined;
  groups.sort((a, b) => (a.value! < b.value! ? 1 : a.value! > b.value! ? -1 : 0) * (descending ? 1 : -1));
  let rows = 0;
  for (const group of groups) {
    rows += group.rows;
    if (rows >= rowsNeeded) return literalOf(group.value!, type);
  }
  return undefined;
}

/** A statistic as the text of a literal of the column's type. */
function literalOf(value: Comparable, type: string): string {
  if (typeof value === 'string') return value;
  if (type === 'DATE') return timestampText(value).slice(0, 10);
  if (type === 'TIMESTAMP') return timestampText(value);
  return String(value);
}
