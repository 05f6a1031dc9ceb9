import type { Vector } from 'apache-arrow';
import type { Connection } from './duckdb-start.ts';
import type { CatalogueTable } from './downloads-catalogue.ts';
import { covered, nothingHeld, ROWS_SCHEMA, viewSql, type Held } from './held-rows.ts';
import { partsAsArrow, readColumns } from './arrow-parts.ts';
import { columnSql, createTableSql, quoteIdentifier, type CatalogueColumn } from './parquet-table.ts';
import { partKey, type Need, type Part } from './parts-needed.ts';
import { eachAtOnce, type PublishedFiles } from './published-files.ts';

/**
 * Rows read into the tables as queries need them (held-rows.ts says what a table holds): only the
 * columns asked for, fetched by HTTP range requests (parquet-table.ts), each column of a row group
 * fetched once and kept, so a query asking again fetches nothing.
 */

export interface RowLoader {
  /** Makes the table hold, besides what it holds, what `need` names, unless it holds it already. */
  hold(table: CatalogueTable, need: Need): Promise<void>;
}

const vectorKey = (part: Part, column: string) => `${partKey(part)}:${column}`;

/** A loader into `connection`'s tables, which hold nothing yet. */
export function rowLoader(connection: Connection, files: PublishedFiles, tables: readonly CatalogueTable[]): RowLoader {
  /** Columns read so far, by part and column: a query asking again fetches nothing. */
  const vectors = new Map<string, Vector>();
  const held = new Map<string, Held>(tables.map((table) => [table.sqlName, nothingHeld]));

  /** Makes the table hold, besides what it holds, these parts of these columns (with no column: all the rows of these files). */
  async function load(table: CatalogueTable, { columns, parts }: Need): Promise<void> {
    const now = held.get(table.sqlName)!;
    const next: Held = columns.length
      ? { parts: await readRows(table, now, columns, parts), counted: now.counted }
      : { parts: now.parts, counted: new Map([...now.counted, ...parts.map((part) => [part.file.url, part.file] as const)]) };
    await connection.query(viewSql(table, next));
    held.set(table.sqlName, next);
  }

  /** Reads these parts of these columns into the table of rows read, keeping what it has; what it then holds. */
  async function readRows(table: CatalogueTable, now: Held, columns: readonly CatalogueColumn[], parts: readonly Part[]): Promise<Held['parts']> {
    await eachAtOnce(parts, async (part) => {
      const missing = columns.filter((column) => !vectors.has(vectorKey(part, column.name)));
      if (!missing.length) return;
      const { file, metadata } = files(part.file);
      const read = await readColumns(file, await metadata, part.rowStart, part.rowEnd, missing);
      for (const [name, vector] of read) vectors.set(vectorKey(part, name), vector);
      // The columns' bytes are not read again (their vectors are kept): the file may let them go.
      for (const chunk of (await metadata).row_groups[part.group]?.columns ?? []) {
        const meta = chunk.meta_data;
        if (!meta || !missing.some((column) => column.name === meta.path_in_schema[0])) continue;
        const start = Number(meta.dictionary_page_offset || meta.data_page_offset);
        file.release(start, start + Number(meta.total_compressed_size));
      }
    });
    const read = new Map(now.parts);
    for (const part of parts)
      read.set(partKey(part), { part, columns: new Set([...(read.get(partKey(part))?.columns ?? []), ...columns.map((column) => column.name)]) });
    // New row groups are added to the table; a row group held gaining columns has it made again, from the vectors held (nothing is fetched twice).
    const widened = parts.some((part) => {
      const before = now.parts.get(partKey(part))?.columns;
      return before !== undefined && columns.some((column) => !before.has(column.name));
    });
    if (widened)
      await connection.query(`DROP TABLE ${ROWS_SCHEMA}.${quoteIdentifier(table.sqlName)}; ${createTableSql(table.sqlName, table.columns, ROWS_SCHEMA)}`);
    await insertRows(table, widened ? [...read.values()] : parts.filter((part) => !now.parts.has(partKey(part))).map((part) => read.get(partKey(part))!));
    return read;
  }

  /** Row groups' rows into the table of rows read, each with its columns (the rest NULL). */
  async function insertRows(table: CatalogueTable, parts: readonly { part: Part; columns: ReadonlySet<string> }[]): Promise<void> {
    // Row groups with the same columns go in together.
    const alike = new Map<string, { columns: CatalogueColumn[]; parts: Part[] }>();
    for (const { part, columns } of parts) {
      const shared = table.columns.filter((column) => columns.has(column.name));
      const key = JSON.stringify(shared.map((column) => column.name));
      if (!alike.has(key)) alike.set(key, { columns: shared, parts: [] });
      alike.get(key)!.parts.push(part);
    }
    for (const { columns, parts: group } of alike.values()) {
      const names = columns.map((column) => column.name);
      const stream = partsAsArrow(
        names,
        group.map((part) => new Map(names.map((column) => [column, vectors.get(vectorKey(part, column))!]))),
      );
      await connection.insertArrowFromIPCStream(stream, { name: 'odsnap_staging', create: true });
      await connection.query(
        `INSERT INTO ${ROWS_SCHEMA}.${quoteIdentifier(table.sqlName)} (${names.map(quoteIdentifier).join(', ')}) SELECT ${columnSql(columns)} FROM odsnap_staging; DROP TABLE odsnap_staging`,
      );
    }
  }

  return {
    async hold(table, need) {
      if (!covered(held.get(table.sqlName)!, need)) await load(table, need);
    },
  };
}
