import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { renderContext } from '../../datasets/vocabulary/render.ts';
import { datasets } from '../../datasets/index.ts';
import { building, parcel, unit } from '../../datasets/rcn/property-details.ts';
import { readTable, type Snapshot } from '../../core/snapshot/read.ts';
import { renderEveryRow } from '../fixtures/rendered.ts';
import { tinySnapshot, withDatabase } from '../fixtures/tiny.ts';

const context = renderContext({ baseUrl: 'https://odsnap.example', timeZone: 'Europe/Warsaw' });

/** Every resource of every data set, rendered from every row of its table. */
let rendered: Map<string, unknown[]>;
let snapshot: Snapshot;

beforeAll(async () => {
  snapshot = await tinySnapshot();
  rendered = new Map();
  await withDatabase(async (db) => {
    for (const dataset of datasets) {
      for (const [name, items] of await renderEveryRow(db, snapshot, dataset, context)) rendered.set(`${dataset.name}.${name}`, items);
    }
  });
});

const resources = datasets.flatMap((d) => Object.values(d.resources).map((r) => [`${d.name}.${r.name}`, r] as const));

describe('the tiny sample city', () => {
  it.each(resources)('renders every %s as its schema says, with no field missing or extra', (key, resource) => {
    const items = rendered.get(key)!;
    expect(items.length, `${key} has rows`).toBeGreaterThan(0);
    for (const item of items) {
      const parsed = resource.schema.safeParse(item);
      if (!parsed.success) throw new Error(`${key}: ${z.prettifyError(parsed.error)}\n${JSON.stringify(item)}`);
      // zod drops unknown keys, so equality also proves nothing extra was rendered.
      expect(parsed.data).toEqual(item);
    }
  });

  /** Fields the spec makes nullable or optional, and values a realistic city must show. */
  const variety: [string, string, (item: any) => unknown][] = [
    ['rcn.transaction', 'a VAT amount and none', (t) => t.vatAmount === null],
    ['rcn.transaction', 'several market types', (t) => t.marketType.code],
    ['rcn.transaction', 'sales of one property and of several', (t) => t.properties.length > 1],
    ['rcn.property', 'every property type', (p) => p.propertyType.code],
    ['rcn.property', 'parcels with and without buildings', (p) => p.buildings.length > 0],
    ['rcn.property', 'shares 1/1 and others', (p) => p.propertyRightShare === '1/1'],
    ['citybike.ride', 'rated and unrated rides', (r) => 'rating' in r],
    ['citybike.ride', 'rides ending in and outside zones', (r) => r.finishedZoneId === null],
    ['citybike.zone', 'zones in and out of service', (z) => z.activeTo === null],
    ['citybike.zone', 'temporary zones and others', (z) => z.temporary],
    ['citybike.bike', 'several bicycle types', (b) => b.type],
    ['citybike.liveBike', 'available and unavailable bicycles', (b) => b.available],
    ['bike-counter.counter', 'counters with and without an external id', (c) => c.externalId === null],
    ['bike-counter.counter', 'counting and decommissioned counters', (c) => c.activeTo === null],
    ['bike-counter.reading', 'winter (+01:00) and summer (+02:00) readings in Europe/Warsaw', (r) => r.readAt.slice(-6)],
    ['air-quality.station', 'stations with and without history', (s) => s.historyEnabled],
    ['air-quality.station', 'more than one provider', (s) => s.provider],
  ];

  it.each(variety)('has in %s: %s', (key, _, valueOf) => {
    const values = new Set(rendered.get(key)!.map(valueOf));
    expect(values.size).toBeGreaterThan(1);
  });

  it('gives every property detail its parcels, buildings and units in the sample shape', () => {
    const properties = rendered.get('rcn.property') as { parcels: unknown[]; buildings: unknown[]; units: unknown[] }[];
    for (const property of properties) {
      for (const p of property.parcels) expect(parcel.strict().parse(p)).toBeTruthy();
      for (const b of property.buildings) expect(building.strict().parse(b)).toBeTruthy();
      for (const u of property.units) expect(unit.strict().parse(u)).toBeTruthy();
      expect(property.parcels.length).toBeGreaterThan(0);
    }
  });

  it('keeps the nine dictionaries with their codes and both labels', () => {
    const payloads = rendered.get('rcn.dictionary') as { name?: string; items: { code?: number; label: { en: string; pl: string } }[] }[];
    const dictionaries = payloads.filter((p) => p.name);
    expect(dictionaries.map((d) => d.name)).toHaveLength(9);
    for (const d of dictionaries) {
      for (const term of d.items) expect(term.label.en && term.label.pl && Number.isInteger(term.code)).toBeTruthy();
    }
  });

  it('has one station whose live readings fail, with the error kept', async () => {
    await withDatabase(async (db) => {
      const airQuality = datasets.find((d) => d.name === 'air-quality')!;
      const live = await readTable(db, snapshot, airQuality, 'live_stations');
      const failing = live.filter((row) => row.error !== null);
      expect(failing).toHaveLength(1);
      expect(failing[0]!.error).toMatchObject({ code: expect.any(String), message: expect.any(String) });
    });
  });
});
