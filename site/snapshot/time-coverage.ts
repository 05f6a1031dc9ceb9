import type { Dataset } from '../../datasets/vocabulary/dataset.ts';
import { recordsAndLiveCoverage } from '../../core/published-tree.ts';
import type { CatalogueTable } from './tree-snapshot.ts';

/** The time a data set's tables cover: its records' own dates, and apart the captures of live views (see recordsAndLiveCoverage). */
export function datasetCoverage(dataset: Dataset, tables: readonly CatalogueTable[]) {
  return recordsAndLiveCoverage(tables, (table) => dataset.tables[table.table]?.liveCaptures === true);
}
