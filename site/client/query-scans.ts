import type { Connection } from './duckdb-start.ts';
import { columnTypes, type CatalogueTable } from './downloads-catalogue.ts';
import { escapeRegExp, scansOf, type ColumnTypes, type Scan } from './scan-plan.ts';

/**
 * What a query reads of each table, asked of DuckDB before it runs: its plan over the empty
 * tables (held-rows.ts), read by scan-plan.ts. A table the SQL names with no scan of it in the
 * plan, or when there is no plan, is read whole: rows are never left out on a guess.
 */

/** The SQL without its comments and string literals: where it names tables. */
const sqlWords = (sql: string) => sql.replace(/--[^\n]*|\/\*[\s\S]*?\*\/|'(?:[^']|'')*'/g, ' ');

/**
 * The scans of a query, planned on `planner` (a connection of its own, whose search path finds the
 * empty tables first); `connection` is the user's, which may know names the planner does not.
 */
export function queryScans(planner: Connection, connection: Connection, tables: readonly CatalogueTable[]): (sql: string) => Promise<Scan[]> {
  const typesOf = new Map<string, ColumnTypes>(tables.map((table) => [table.sqlName, columnTypes(table)]));

  /** The scans of the query, by table; `fails` when it fails to bind; undefined when DuckDB cannot plan it. */
  async function plan(sql: string): Promise<Scan[] | 'fails' | undefined> {
    // EXPLAIN covers one statement: more than one are read whole.
    if (/;\s*\S/.test(sql.replace(/--[^\n]*/g, '').trim())) return undefined;
    const explain = `EXPLAIN (FORMAT JSON) ${sql.replace(/;\s*$/, '')}`;
    const bindFails = (failure: unknown) => /^(Parser|Catalog|Binder) Error/.test(failure instanceof Error ? failure.message : '');
    // Statistics of tables not loaded yet would let DuckDB prune scans away from the plan. The
    // option is the database's, not the connection's: off for the plan alone, then as it was (the
    // user's own setting included), so the user's queries keep it.
    const disabled = String((await planner.query("SELECT current_setting('disabled_optimizers') AS value")).getChild('value')?.get(0) ?? '');
    await planner.query(`SET disabled_optimizers = '${[disabled, 'statistics_propagation'].filter(Boolean).join(',')}'`);
    try {
      const answer = await planner.query(explain);
      const plan = answer.getChild('explain_value')?.get(0);
      return typeof plan === 'string' ? scansOf(plan, typesOf) : undefined;
    } catch (failure) {
      if (!bindFails(failure)) return undefined;
      // A name only the user's connection knows (a TEMP table, their search path) is no failure:
      // the query is then not planned, and the tables it names are read whole.
      if (/^Catalog Error/.test(failure instanceof Error ? failure.message : '')) {
        try {
          await connection.query(explain);
          return undefined;
        } catch (again) {
          if (!bindFails(again)) return undefined;
        }
      }
      // The query fails the same way when run: nothing to load for it.
      return 'fails';
    } finally {
      await planner.query(`SET disabled_optimizers = '${disabled.replaceAll("'", "''")}'`);
    }
  }

  return async (sql) => {
    const planned = await plan(sql);
    if (planned === 'fails') return [];
    const words = sqlWords(sql);
    const unplanned = tables.filter(
      (table) => !planned?.some((scan) => scan.table === table.sqlName) && new RegExp(`\\b${escapeRegExp(table.sqlName)}\\b`, 'i').test(words),
    );
    return [...(planned ?? []), ...unplanned.map((table): Scan => ({ table: table.sqlName, columns: undefined, conditions: [] }))];
  };
}
