import type { Query } from '../../datasets/answers/index.ts';
import type { Dataset, Resource } from '../../datasets/vocabulary/dataset.ts';
import type { RenderContext } from '../../datasets/vocabulary/render.ts';
import { valueOf } from '../../datasets/vocabulary/written.ts';
import type { LiveTables } from './live-rows.ts';

/**
 * The `Query` a custom answer reads the snapshot through (see datasets/answers/custom/), over one
 * minute's live rows held in memory: the same declaration then answers as `odsnap serve` answers
 * from a snapshot, the rows coming from the sample's clock instead of its files.
 */
export function liveQuery(dataset: Dataset, tables: LiveTables, context: RenderContext): Query {
  const resourceOf = (name: string): Resource => {
    const resource = dataset.resources[name];
    if (!resource) throw new Error(`${dataset.name} has no resource ${name}`);
    return resource;
  };
  const rowsOf = (name: string) => {
    const table = resourceOf(name).table;
    const rows = tables[table];
    if (!rows) throw new Error(`${dataset.name}'s live sample writes no rows of ${table}, which its live answers read`);
    return { rows, timeColumn: dataset.tables[table]!.timeColumn };
  };
  const narrowed = (rows: readonly Record<string, unknown>[], where: Readonly<Record<string, string | number>>) =>
    rows.filter((row) => Object.entries(where).every(([column, value]) => row[column] === value)).map((row) => ({ ...row }));
  return {
    rows: async (name, where = {}) => narrowed(rowsOf(name).rows, where),
    async latest(name, where = {}) {
      const { rows, timeColumn } = rowsOf(name);
      if (!timeColumn) throw new Error(`${dataset.name}/${resourceOf(name).table} has no time column to find its latest rows by`);
      // The newest capture of the whole table, as the server's statement finds it, then narrowed.
      const newest = Math.max(...rows.map((row) => row[timeColumn] as number));
      return narrowed(
        rows.filter((row) => row[timeColumn] === newest),
        where,
      );
    },
    render: (name, row) => resourceOf(name).render(row, context),
    value: (name, row) => valueOf(resourceOf(name).render(row, context)) as Record<string, unknown>,
  };
}
