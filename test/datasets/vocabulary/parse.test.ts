import { beforeAll, describe, expect, it } from 'vitest';
import { patchOf } from '../../../datasets/vocabulary/parse.ts';
import { relativeLinks, renderContext } from '../../../datasets/vocabulary/render.ts';
import { datasets } from '../../../datasets/index.ts';
import { readTable, type Snapshot } from '../../../core/snapshot/read.ts';
import { tinySnapshot, withDatabase } from '../../fixtures/tiny.ts';

const upstream = 'https://upstream.example/v1';
const render = renderContext({ baseUrl: upstream });

let snapshot: Snapshot;
beforeAll(async () => (snapshot = await tinySnapshot()));

const parsed = datasets.flatMap((d) =>
  Object.values(d.resources)
    .filter((r) => r.parse)
    .map((r) => [`${d.name}.${r.name}`, d, r] as const),
);

describe('parsing what rendering wrote', () => {
  it.each(parsed)('gives %s back row for row, with nothing left over', async (_, dataset, resource) => {
    const rows = await withDatabase((db) => readTable(db, snapshot, dataset, resource.table));
    expect(rows.length).toBeGreaterThan(0);
    // Derived columns are worked out from other tables when a snapshot is written, never parsed.
    const derivedColumns = Object.entries(dataset.tables[resource.table]!.columns)
      .filter(([, column]) => column.derive)
      .map(([name]) => name);
    for (const row of rows.slice(0, 2000)) {
      // As it would arrive over HTTP: rendered on the upstream's address, through JSON.
      const record = JSON.parse(JSON.stringify(resource.render(row, render)));
      const params = Object.fromEntries(
        [
          ['counterId', row.counter_id],
          ['stationId', row.station_id],
          ['sensorCode', row.sensor_code],
        ].filter(([, v]) => v !== undefined),
      ) as Record<string, string>;
      const context = {
        params,
        path: String(row.path ?? ''),
        fetchedAt: Number(row.captured_at ?? 0),
        json: (v: unknown) => relativeLinks(v, upstream),
        unread: (filter: string) => expect.fail(`the sample's ${filter} went unread`),
      };
      const back = resource.parse!(resource.schema.parse(record), context);
      const { extra, upstream_json, ...stored } = row;
      for (const name of derivedColumns) delete stored[name];
      delete stored.list_position; // a pull fills it in from where the record stood in its list
      expect(back).toEqual(stored);
      expect(extra).toBeNull();
      expect(upstream_json, 'the sample renders as written, so nothing is kept beside it').toBeNull();
      expect(patchOf(record, JSON.parse(JSON.stringify(resource.render(back, render))))).toBeUndefined();
    }
  });

  it('keeps in a patch what an upstream sends beyond the spec, and restores it when rendering', () => {
    const original = {
      uri: `${upstream}/api/public/rcn/transactions/x`,
      grossPrice: '10',
      note: 'kept',
      idRCN: { namespace: 'n', localId: 'l', versionId: 'v', checksum: 7 },
    };
    const rendered = { uri: 'http://elsewhere/x', grossPrice: '10.00', idRCN: { namespace: 'n', localId: 'l', versionId: 'v' }, vatAmount: null };
    const patch = patchOf(original, rendered);
    expect(patch).toEqual({ grossPrice: '10', note: 'kept', idRCN: { checksum: 7 }, vatAmount: null });
    expect(patchOf({ at: '2025-01-01T01:00:00+01:00' }, { at: '2025-01-01T00:00:00Z' })).toBeUndefined();
  });
});
