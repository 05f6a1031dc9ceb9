import type { Dataset } from '../../datasets/vocabulary/dataset.ts';
import { timeCoverage } from '../../core/published-tree.ts';
import type { CatalogueTable } from './tree-snapshot.ts';

/**
 * The time a data set's tables cover, as two ranges: the records' own dates, and the captures of
 * live views, stamped by the pull's clock (a pull today captures today, however old the data);
 * one range over both would claim records up to the day of the last pull.
 */
export function datasetCoverage(dataset: Dataset, tables: readonly CatalogueTable[]) {
  const live = (table: CatalogueTable) => dataset.tables[table.table]?.liveCaptures === true;
  return { records: timeCoverage(tables.filter((table) => !live(table))), live: timeCoverage(tables.filter(live)) };
}
