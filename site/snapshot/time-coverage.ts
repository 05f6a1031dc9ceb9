import type { Dataset } from '../../datasets/vocabulary/dataset.ts';
import { recordsAndLiveCoverage, timeCoverage } from '../../core/published-tree.ts';
import { formatTime } from '../figures/scales.ts';
import type { Ui } from '../i18n/ui.ts';
import type { CatalogueTable } from './tree-snapshot.ts';

const isLive = (dataset: Dataset) => (table: CatalogueTable) => dataset.tables[table.table]?.liveCaptures === true;

/** The time a data set's tables cover: its records' own dates, and apart the captures of live views (see recordsAndLiveCoverage). */
export function datasetCoverage(dataset: Dataset, tables: readonly CatalogueTable[]) {
  return recordsAndLiveCoverage(tables, isLive(dataset));
}

/** The records' own dates over several data sets (live captures are dated by the pull, not the data). */
export function recordsCoverage(datasets: readonly { readonly dataset: Dataset; readonly tables: readonly CatalogueTable[] }[]) {
  return timeCoverage(datasets.flatMap(({ dataset, tables }) => tables.filter((table) => !isLive(dataset)(table))));
}

/** The rows of some tables, together. */
export const rowCount = (tables: readonly CatalogueTable[]) => tables.reduce((sum, table) => sum + table.rows, 0);

/** A range of time as the pages write it (days, in UTC); the words for none when there is none. */
export const rangeText = (ui: Ui, range: { readonly min: string; readonly max: string } | undefined) =>
  range ? ui.dataset.timeRange(formatTime(range.min), formatTime(range.max)) : ui.dataset.noCoverage;
