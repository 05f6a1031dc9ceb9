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
import { ensureServeDatabase, recordFile, recordsDir, serveDatabasePath, RENDERING_TABLE, renderedColumn, renderedTable, SCHEMA } from '../../server/serve-database.ts';
import { lookupColumns, recordedResources, renderedKeys, renderedResources, storagePlan } from '../../server/storage-plan.ts';
import { tempDir, tinySnapshot, withDatabase } from '../fixtures/tiny.ts';

describe('the serving database', () => {
  it('is named after the code that shapes it, and building it removes the files of older code and of builds that died', async () => {
    const snapshot = { ...(await tinySnapshot()), cacheDir: await tempDir('serve-database') };
    const dead = spawnSync('true').pid!;
    const building = (owner: string) => `serve-v6-0123456789ab.duckdb.${owner}-0a1b2c3d.tmp`;
    const stale = ['serve-v4.duckdb', 'serve-v5-0123456789ab.duckdb', 'serve-v5-0123456789ab.records', building(`${hostname()}-${dead}`), `${building(`${hostname()}-${dead}`)}.wal`, `${building(`${hostname()}-${dead}`)}.records`];
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
    await expect(ensureServeDatabase(other, misdeclared)).rejects.toThrow(`could not build the serving database of snapshot ${snapshot.id}: ${elsewhere} exports no data set named "rcn"`);
    expect(await readdir(other.cacheDir)).toEqual([]);
  });

  it('renders the resources pages and items answer with, taking no time zone, and only those', () => {
    const rendered = datasets.flatMap((dataset) => Object.values(dataset.tables).flatMap((table) => renderedResources(dataset, table).map((r) => `${dataset.name}/${r.name}`)));
    expect(rendered.sort()).toEqual(['air-quality/sensor', 'air-quality/station', 'bike-counter/counter', 'citybike/bike', 'citybike/season', 'citybike/zone', 'rcn/property', 'rcn/propertySummary', 'rcn/transaction']);
  });

  it('holds, row for row, each stored row rendered as those resources, links under a placeholder for the base, with the keys items are looked up by', async () => {
    const snapshot = await tinySnapshot();
    const path = await ensureServeDatabase(snapshot, datasets);
    const base = 'https://example.org/odsnap';
    await withDatabase(async (db) => {
      await db.run(`ATTACH ${quoteString(path)} AS served_file (READ_ONLY)`);
      const token = (await db.rows<{ token: string }>(`SELECT token FROM served_file.${SCHEMA}.${RENDERING_TABLE}`))[0]!.token;
      let compared = 0;
      for (const dataset of datasets) {
        for (const table of Object.values(dataset.tables)) {
          const resources = renderedResources(dataset, table);
          if (!resources.length || !storagePlan(dataset, table, snapshot)) continue;
          const stored = `served_file.${SCHEMA}.${quoteIdentifier(viewName(dataset, table.name))}`;
          const texts = `served_file.${SCHEMA}.${quoteIdentifier(renderedTable(viewName(dataset, table.name)))}`;
          const decode = rowDecoder(table.columns);
          const rows = [];
          for await (const batch of db.streamJson(`SELECT ${readList(table.columns)} FROM ${stored} ORDER BY rowid`)) rows.push(...batch.map(decode));
          const rendered = await db.rows<Record<string, string>>(`SELECT * FROM ${texts} ORDER BY rowid`);
          expect(rendered.length, table.name).toBe(rows.length);
          const keys = renderedKeys(dataset, table);
          if (keys.length) compared++;
          const keyed = keys.length === 0 ? rows.map((): Record<string, unknown> => ({})) : await db.rows(`SELECT ${keys.map(quoteIdentifier).join(', ')} FROM ${stored} ORDER BY rowid`);
          expect(rendered.map((row) => keys.map((key) => row[key])), `${table.name} keys`).toEqual(keyed.map((row) => keys.map((key) => row[key])));
          const context = renderContext({ baseUrl: base });
          rows.forEach((row, i) => {
            for (const resource of resources) {
              const text = rendered[i]![renderedColumn(resource.name)]!;
              expect(text.replaceAll(token, base)).toBe(JSON.stringify(resource.render(row, context)));
              compared++;
            }
          });
        }
      }
      expect(compared).toBeGreaterThan(100);
      expect(token).toMatch(/^\{base_url:[\w-]{12}\}$/);
    });
  });

  it('indexes the columns items and the parents of series are looked up by, beside the renderings for items answered by them', async () => {
    const snapshot = await tinySnapshot();
    const path = await ensureServeDatabase(snapshot, datasets);
    const expected = datasets.flatMap((dataset) =>
      Object.values(dataset.tables).flatMap((table) => {
        if (!storagePlan(dataset, table, snapshot)) return [];
        const stored = viewName(dataset, table.name);
        return [...lookupColumns(dataset, table).map((column) => `${stored}.${column}`), ...renderedKeys(dataset, table).map((column) => `${renderedTable(stored)}.${column}`)];
      }));
    expect(expected).toEqual(expect.arrayContaining(['rcn_transactions__rendered.transaction_gml_id', 'rcn_properties__rendered.property_gml_id', 'air_quality_stations.external_id', 'bike_counter_counters.id']));
    expect(expected).not.toContain('rcn_transactions.transaction_gml_id');
    await withDatabase(async (db) => {
      await db.run(`ATTACH ${quoteString(path)} AS served_file (READ_ONLY)`);
      const indexes = await db.rows<{ table_name: string; sql: string }>(`SELECT table_name, sql FROM duckdb_indexes() WHERE database_name = 'served_file'`);
      expect(indexes.map((i) => `${i.table_name}.${/\("?([\w]+)"?\)/.exec(i.sql)?.[1]}`).sort()).toEqual([...expected].sort());
    });
  });

  it('writes the renderings of each resource stored rendered as a record file, read by row number and found by each of its keys as the first row with that key', async () => {
    const snapshot = await tinySnapshot();
    const path = await ensureServeDatabase(snapshot, datasets);
    const recorded: string[] = [];
    await withDatabase(async (db) => {
      await db.run(`ATTACH ${quoteString(path)} AS served_file (READ_ONLY)`);
      for (const dataset of datasets) {
        for (const table of Object.values(dataset.tables)) {
          if (!storagePlan(dataset, table, snapshot)) continue;
          for (const { resource, keys } of recordedResources(dataset, table)) {
            recorded.push(`${dataset.name}/${resource.name}`);
            const records = RecordFile.open(recordFile(recordsDir(path), viewName(dataset, table.name), resource.name));
            try {
              const texts = `served_file.${SCHEMA}.${quoteIdentifier(renderedTable(viewName(dataset, table.name)))}`;
              const rows = await db.rows<Record<string, unknown>>(`SELECT ${[...keys.map((key) => `CAST(${quoteIdentifier(key)} AS VARCHAR) AS ${quoteIdentifier(key)}`), `${quoteIdentifier(renderedColumn(resource.name))} AS text`].join(', ')} FROM ${texts} ORDER BY rowid`);
              expect(rows.length).toBeGreaterThan(0);
              // Pages read rows by number: runs of neighbours and rows apart, in the order asked.
              const wanted = [...new Set([0, 1, 2, Math.floor(rows.length / 2), rows.length - 1])].filter((row) => row < rows.length);
              expect(records.withJoined(wanted, 0x2c, (bytes) => bytes.toString()), `${resource.name} rows`).toBe(wanted.map((row) => rows[row]!.text).join(','));
              expect(records.withJoined([], 0x2c, (bytes) => bytes.length)).toBe(0);
              for (const key of keys) {
                const first = new Map<string, string>();
                for (const row of rows) if (row[key] !== null && !first.has(row[key] as string)) first.set(row[key] as string, row.text as string);
                for (const [value, text] of first) expect(records.find(key, value)?.toString(), `${resource.name} ${key} ${value}`).toBe(text);
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
    expect(recorded.sort()).toEqual(['air-quality/sensor', 'air-quality/station', 'bike-counter/counter', 'citybike/bike', 'citybike/season', 'citybike/zone', 'rcn/property', 'rcn/propertySummary', 'rcn/transaction']);
  });
});
