import type { DuckDBValue } from '@duckdb/node-api';
import { rowDecoder } from '../../../core/db/columns.ts';
import { quoteIdentifier } from '../../../core/db/duckdb.ts';
import { rowOrder } from '../../../core/row-order.ts';
import { castParam, columnsFor, resourceOf, selectList, type AnswerRequest } from '../serving.ts';
import { valueOf } from '../../vocabulary/written.ts';
import type { Query } from './declaration.ts';

/** The snapshot as a custom answer sees it, on the server. */
export function queryFor(request: AnswerRequest): Query {
  const read = async (name: string, where: Readonly<Record<string, string | number>>, latest: boolean) => {
    const resource = resourceOf(request.dataset, name);
    const table = request.dataset.tables[resource.table]!;
    const values: DuckDBValue[] = [];
    const bind = (value: DuckDBValue) => `$${values.push(value)}`;
    const conditions = Object.entries(where).map(([column, value]) => `${quoteIdentifier(column)} = ${castParam(table.columns[column]!, bind(value))}`);
    let files = request.served.files(request.dataset, resource.table, { equal: where });
    if (latest) {
      if (!table.timeColumn) throw new Error(`${request.dataset.name}/${table.name} has no time column to find its latest rows by`);
      const newest = request.served.snapshot.manifest.datasets[request.dataset.name]!.tables[table.name]!.files.reduce<string | null>(
        (max, f) => (f.max && (!max || f.max > max) ? f.max : max),
        null,
      );
      if (newest) files = request.served.files(request.dataset, resource.table, { equal: where, from: Date.parse(newest) });
      const source = request.served.source(request.dataset, resource, files, bind);
      conditions.push(`${quoteIdentifier(table.timeColumn)} = (SELECT max(${quoteIdentifier(table.timeColumn)}) FROM ${source})`);
    }
    const columns = columnsFor(request, resource);
    const rows = await request.connection.rows(
      `SELECT ${selectList(columns)} FROM ${request.served.source(request.dataset, resource, files, bind)}${conditions.length ? ` WHERE ${conditions.join(' AND ')}` : ''} ORDER BY ${rowOrder(table).map(quoteIdentifier).join(', ')}`,
      values,
    );
    return rows.map(rowDecoder(Object.fromEntries(columns)));
  };
  return {
    rows: (resource, where = {}) => read(resource, where, false),
    latest: (resource, where = {}) => read(resource, where, true),
    render: (resource, row) => resourceOf(request.dataset, resource).render(row, request.context),
    value: (resource, row) => valueOf(resourceOf(request.dataset, resource).render(row, request.context)) as Record<string, unknown>,
  };
}
