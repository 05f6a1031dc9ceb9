import type { DuckDBConnection } from '@duckdb/node-api';

/** A result's values as JSON-friendly JS, where DuckDB's JSON form of them is not. */

/**
 * How the binding's JSON form writes infinite dates and timestamps of each type that it does not
 * write as "infinity": as the far dates they are stored as. Found once, from DuckDB itself.
 */
let infinityTexts: Promise<Map<string, Map<unknown, string>>> | undefined;

async function findInfinityTexts(connection: DuckDBConnection): Promise<Map<string, Map<unknown, string>>> {
  const types = ['DATE', 'TIMESTAMP_S', 'TIMESTAMP_MS', 'TIMESTAMP', 'TIMESTAMP_NS', 'TIMESTAMPTZ'];
  const texts = new Map<string, Map<unknown, string>>();
  const result = await connection.stream(
    `SELECT ${types.flatMap((type, i) => [`'infinity'::${type} AS "${i}+"`, `'-infinity'::${type} AS "${i}-"`]).join(', ')}`,
  );
  const columnTypes = result.columnTypes().map(String);
  for await (const rows of result.yieldRowsJson()) {
    rows[0]!.forEach((value, i) => {
      const type = columnTypes[i]!;
      if (!texts.has(type)) texts.set(type, new Map());
      texts.get(type)!.set(value, i % 2 ? '-infinity' : 'infinity');
    });
  }
  return texts;
}

const SAFE_INTEGER_TYPES = new Set(['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT', 'UTINYINT', 'USMALLINT', 'UINTEGER', 'UBIGINT', 'UHUGEINT']);

/** DuckDB's JSON form writes big integers as text (small enough ones become numbers again) and infinite dates as far ones. */
export const friendly = (value: unknown, type: string, infinities: Map<string, Map<unknown, string>>) => {
  if (typeof value !== 'string') return value;
  if (SAFE_INTEGER_TYPES.has(type)) return Number.isSafeInteger(Number(value)) ? Number(value) : value;
  return infinities.get(type)?.get(value) ?? value;
};

/** The texts of infinite dates and timestamps, found once per process (see findInfinityTexts). */
export const infinitiesOf = (connection: DuckDBConnection): Promise<Map<string, Map<unknown, string>>> => (infinityTexts ??= findInfinityTexts(connection));
