import { spawnSync } from 'node:child_process';
import { readdir, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { datasets } from '../../datasets/index.ts';
import { viewName } from '../../core/table.ts';
import { renderContext } from '../../datasets/vocabulary/render.ts';
import { readList, rowDecoder } from '../../core/db/columns.ts';
import { quoteIdentifier, quoteString } from '../../core/db/duckdb.ts';
import { RecordFile } from '../../server/record-store.ts';
import { ensureServeDatabase, recordFile, recordsDir, serveDatabasePath, RENDERING_TABLE, SCHEMA } from '../../server/serve-database.ts';
import { lookupColumns, recordedResources, renderedResources, storagePlan } from '../../server/storage-plan.ts';
import { tempDir, tinySnapshot, withDatabase } from '../fixtures/tiny.ts';

describe('the serving database', () => {
  it('is named after the code that shapes it, and building it removes the files of older code and of builds that died', async () => {
    const snapshot = { ...(await tinySnapshot()), cacheDir: await tempDir('serve-database') };
    const dead = spawnSync('true').pid!;
    const building = (owner: string) => `serve-v6-0123456789ab.duckdb.${owner}-0a1b2c3d.tmp`;
    const stale = [
      'serve-v4.duckdb',
      'serve-v5-0123456789ab.duckdb',
      'serve-v5-0123456789ab.records',
      building(`${hostname()}-${dead}`),
      `${building(`${hostname()}-${dead}`)}.wal`,
      `${building(`${hostname()}-${dead}`)}.records`,
    ];
    // A build running here, and one on another machine sharing the disk (its process ids mean nothing here).
    const kept = [building(`${hostname()}-${process.pid}`), building(`elsewhere-${dead}`)];
    for (const name of [...stale, ...kept]) await writeFile(join(snapshot.cacheDir, name), 'stale');
    const path = await ensureServeDatabase(snapshot, datasets);
    expect(path).toBe(await serveDatabasePath(snapshot));
    expect(basename(path)).toMatch(/^serve-v\d+-[\w-]{12}\.duckdb$/);
    expect((await readdir(snapshot.cacheDir)).sort()).toEqual([basename(path), basename(recordsDir(path)), ...kept].sort());
  });

  it('is built in a process of its own, which loads each data set from the module that declares it, and says why when it cannot', async () => {
    const snapshot = { ...(await tinySnapshot()), cacheDir: await tempDir('serve-database-apart') };
    const events: Record<string, unknown>[] = [];
    await ensureServeDatabase(snapshot, datasets, (event) => events.push(event));
    expect(events).toEqual([
      { event: 'serving-database-building', snapshot: snapshot.id },
      { event: 'serving-database-built', snapshot: snapshot.id, builder: expect.any(Number), seconds: expect.any(Number), peakMiB: expect.any(Number) },
    ]);
    expect(events[1]!.builder).not.toBe(process.pid);
    const elsewhere = new URL('../../datasets/citybike/index.ts', import.meta.url).href;
    const misdeclared = datasets.map((dataset) => (dataset.name === 'rcn' ? { ...dataset, module: elsewhere } : dataset));
    const other = { ...snapshot, cacheDir: await tempDir('serve-database-misdeclared') };
    await expect(ensureServeDatabase(other, misdeclared)).rejects.toThrow(
      `could not build the serving database of snapshot ${snapshot.id}: ${elsewhere} exports no data set named "rcn"`,
    );
    expect(await readdir(other.cacheDir)).toEqual([]);
  });

  it('renders the resources pages and items answer with, taking no time zone, and only those', () => {
    const rendered = datasets.flatMap((dataset) =>
      Object.values(dataset.tables).flatMap((table) => renderedResources(dataset, table).map((r) => `${dataset.name}/${r.name}`)),
    );
    expect(rendered.sort()).toEqual([
      'air-quality/sensor',
      'air-quality/station',
      'bike-counter/counter',
      'citybike/bike',
      'citybike/season',
      'citybike/zone',
      'rcn/property',
      'rcn/propertySummary',
      'rcn/transaction',
    ]);
  });

  it('writes each stored row rendered as those resources into their record files, row for row, links under a placeholder for the base, found by each key as the first row with it', async () => {
    const snapshot = await tinySnapshot();
    const path = await ensureServeDatabase(snapshot, datasets);
    const base = 'https://example.org/odsnap';
    const context = renderContext({ baseUrl: base });
    const recorded: string[] = [];
    await withDatabase(async (db) => {
      await db.run(`ATTACH ${quoteString(path)} AS served_file (READ_ONLY)`);
      const token = (await db.rows<{ token: string }>(`SELECT token FROM served_file.${SCHEMA}.${RENDERING_TABLE}`))[0]!.token;
      expect(token).toMatch(/^\{base_url:[\w-]{12}\}$/);
      for (const dataset of datasets) {
        for (const table of Object.values(dataset.tables)) {
          if (!storagePlan(dataset, table, snapshot)) continue;
          const stored = `served_file.${SCHEMA}.${quoteIdentifier(viewName(dataset, table.name))}`;
          const decode = rowDecoder(table.columns);
          const rows = [];
          for await (const batch of db.streamJson(`SELECT ${readList(table.columns)} FROM ${stored} ORDER BY rowid`)) rows.push(...batch.map(decode));
          for (const { resource, keys } of recordedResources(dataset, table)) {
            recorded.push(`${dataset.name}/${resource.name}`);
            const records = RecordFile.open(recordFile(recordsDir(path), viewName(dataset, table.name), resource.name));
            try {
              // Every row, rendered here by the data set's own function, is the file's text at its row number.
              const texts = rows.map((row) => JSON.stringify(resource.render(row, context)));
              expect(texts.length).toBeGreaterThan(0);
              texts.forEach((text, i) =>
                expect(
                  records.withJoined([i], 0x2c, (bytes) => bytes.toString().replaceAll(token, base)),
                  `${resource.name} row ${i}`,
                ).toBe(text),
              );
              // Pages read rows by number: runs of neighbours and rows apart, in the order asked.
              const wanted = [...new Set([2, 0, 1, Math.floor(texts.length / 2), texts.length - 1])].filter((row) => row < texts.length);
              expect(
                records.withJoined(wanted, 0x2c, (bytes) => bytes.toString().replaceAll(token, base)),
                `${resource.name} rows`,
              ).toBe(wanted.map((row) => texts[row]).join(','));
              for (const key of keys) {
                const keyTexts = await db.rows<{ key: string | null }>(
                  `SELECT CAST(${quoteIdentifier(key)} AS VARCHAR) AS "key" FROM ${stored} ORDER BY rowid`,
                );
                const first = new Map<string, string>();
                keyTexts.forEach((row, i) => row.key !== null && !first.has(row.key) && first.set(row.key, texts[i]!));
                expect(first.size, `${resource.name} ${key}`).toBeGreaterThan(0);
                for (const [value, text] of first)
                  expect(records.find(key, value)?.toString().replaceAll(token, base), `${resource.name} ${key} ${value}`).toBe(text);
                expect(records.find(key, 'no-such-key')).toBeUndefined();
                expect(records.find(key, '')).toBeUndefined();
              }
            } finally {
              records.close();
            }
          }
        }
      }
    });
    expect(recorded.sort()).toEqual([
      'air-quality/sensor',
      'air-quality/station',
      'bike-counter/counter',
      'citybike/bike',
      'citybike/season',
      'citybike/zone',
      'rcn/property',
      'rcn/propertySummary',
      'rcn/transaction',
    ]);
  });

  it('indexes the columns items not found in record files and the parents of series are looked up by', async () => {
    const snapshot = await tinySnapshot();
    const path = await ensureServeDatabase(snapshot, datasets);
    const expected = datasets.flatMap((dataset) =>
      Object.values(dataset.tables).flatMap((table) =>
        storagePlan(dataset, table, snapshot) ? lookupColumns(dataset, table).map((column) => `${viewName(dataset, table.name)}.${column}`) : [],
      ),
    );
    expect(expected).toEqual(expect.arrayContaining(['air_quality_stations.external_id', 'bike_counter_counters.id']));
    expect(expected).not.toContain('rcn_transactions.transaction_gml_id');
    await withDatabase(async (db) => {
      await db.run(`ATTACH ${quoteString(path)} AS served_file (READ_ONLY)`);
      const indexes = await db.rows<{ table_name: string; sql: string }>(`SELECT table_name, sql FROM duckdb_indexes() WHERE database_name = 'served_file'`);
      expect(indexes.map((i) => `${i.table_name}.${/\("?([\w]+)"?\)/.exec(i.sql)?.[1]}`).sort()).toEqual([...expected].sort());
      // The rendered texts are in the record files alone.
      const tables = await db.rows<{ table_name: string }>(`SELECT table_name FROM duckdb_tables() WHERE database_name = 'served_file'`);
      expect(tables.filter((t) => t.table_name.includes('rendered'))).toEqual([]);
    });
  });
});
