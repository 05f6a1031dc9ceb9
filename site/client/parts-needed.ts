import { columnTypes, type CatalogueTable } from './downloads-catalogue.ts';
import type { CatalogueColumn } from './parquet-table.ts';
import { eachAtOnce, type PublishedFiles } from './published-files.ts';
import { fileRanges, scanMayRead, statisticValue, type CatalogueFile, type Scan } from './scan-plan.ts';

/**
 * What a query's scans need of a table: the columns they read, and the row groups they may keep a
 * row of. Files are skipped by the catalogue, row groups by their statistics (scan-plan.ts).
 */

/** A row group of a file (or the whole file, `group` -1, when no column is read). */
export interface Part {
  readonly file: CatalogueFile;
  readonly group: number;
  readonly rowStart: number;
  readonly rowEnd: number;
}
export const partKey = (part: Part) => `${part.file.url}#${part.group}`;

/** Columns of parts of a table; with no column, all the rows of the parts' files (a count reads no column). */
export interface Need {
  readonly columns: readonly CatalogueColumn[];
  readonly parts: readonly Part[];
}

/** The parts of a table its scans may keep a row of, and the columns they read. */
export async function partsNeeded(table: CatalogueTable, scans: readonly Scan[], files: PublishedFiles): Promise<Need> {
  const types = columnTypes(table);
  const columns = table.columns.filter((column) => scans.some((scan) => !scan.columns || scan.columns.has(column.name)));
  const kept = table.files.filter((file) => scans.some((scan) => scanMayRead(scan, fileRanges(file, table.partitionBy, table.timeColumn, types))));
  if (!columns.length) return { columns, parts: kept.map((file) => ({ file, group: -1, rowStart: 0, rowEnd: file.rows })) };
  const parts: Part[] = [];
  await eachAtOnce(kept, async (file) => {
    const metadata = await files(file).metadata;
    let rowStart = 0;
    metadata.row_groups.forEach((group, index) => {
      const rowEnd = rowStart + Number(group.num_rows);
      const statistics = (column: string) => {
        const chunk = group.columns.find((candidate) => candidate.meta_data?.path_in_schema.join('.') === column);
        const stats = chunk?.meta_data?.statistics;
        const type = types.get(column)!;
        return stats
          ? { min: statisticValue(stats.min_value ?? stats.min, type, 'min'), max: statisticValue(stats.max_value ?? stats.max, type, 'max') }
          : undefined;
      };
      if (scans.some((scan) => scanMayRead(scan, statistics))) parts.push({ file, group: index, rowStart, rowEnd });
      rowStart = rowEnd;
    });
  });
  return { columns, parts };
}
