import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datasets } from '../../../../datasets/index.ts';
import { readTable } from '../../../../core/snapshot/read.ts';
import { column } from '../../../../datasets/vocabulary/column.ts';
import { boundAtScale } from '../../../../datasets/answers/page/filters.ts';
import { startTestServer, type TestServer } from '../../../fixtures/server.ts';
import {
  finerBound,
  inBox,
  matching,
  propertyFilters,
  shapeMeetsBox,
  shapesOf,
  transactionFilters,
  type Box,
  type Row,
} from '../../../fixtures/spec-filters.ts';
import { tinySnapshot, withDatabase } from '../../../fixtures/tiny.ts';

let server: TestServer;
let transactions: Row[];
let properties: Row[];

beforeAll(async () => {
  server = await startTestServer();
  const snapshot = await tinySnapshot();
  const rcn = datasets[0]!;
  await withDatabase(async (db) => {
    transactions = await readTable(db, snapshot, rcn, 'transactions');
    properties = await readTable(db, snapshot, rcn, 'properties');
  });
});
afterAll(() => server.close());

/** Every item of a list, following `pagination.next` from the first page. */
async function walk(path: string): Promise<{ items: Row[]; pages: Row[] }> {
  const items: Row[] = [];
  const pages: Row[] = [];
  for (let next: string | null = path; next; ) {
    const page: Row = await server.json(next);
    pages.push(page.pagination);
    items.push(...page.items);
    next = page.pagination.next;
  }
  return { items, pages };
}

describe('GET /api/public/rcn/transactions', () => {
  const cases = (): Record<string, string>[] => [
    {},
    { transactionIdentifier: transactions[5]!.transaction_identifier },
    { documentDateFrom: '2025-03-01' },
    { documentDateTo: '2025-01-31' },
    { documentDateFrom: '2025-02-01', documentDateTo: '2025-02-28' },
    { grossPriceFrom: '500000' },
    { grossPriceTo: '400000.5' },
    { grossPriceFrom: '600000', grossPriceTo: '900000.00' },
    { grossPriceFrom: finerBound(transactions[7]!.gross_price, 'above') },
    { grossPriceTo: finerBound(transactions[7]!.gross_price, 'below') },
    { transactionType: '1' },
    { marketType: '1' },
    { marketType: '2' },
    { sellerPartyType: '4' },
    { buyerPartyType: '3' },
    { marketType: '2', sellerPartyType: '3', grossPriceFrom: '700000', documentDateFrom: '2024-12-01' },
    { transactionType: '99' },
  ];

  it('filters exactly as the spec says, alone and combined, in a stable order with a true total', async () => {
    for (const query of cases()) {
      const expected = matching(transactions, transactionFilters, query).map((t) => t.transaction_gml_id);
      const { items, pages } = await walk(`/api/public/rcn/transactions?${new URLSearchParams({ ...query, limit: '100' })}`);
      expect(
        items.map((t) => t.id),
        JSON.stringify(query),
      ).toEqual(expected);
      expect(
        pages.every((p) => p.total === expected.length),
        JSON.stringify(query),
      ).toBe(true);
    }
  });

  it('walks all pages without overlap or gap, with next null on the last', async () => {
    const { items, pages } = await walk('/api/public/rcn/transactions?limit=7');
    const ids = items.map((t) => t.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(transactions.map((t) => t.transaction_gml_id));
    expect(pages.map((p) => p.offset)).toEqual(pages.map((_, i) => i * 7));
    expect(pages.every((p) => p.limit === 7 && p.total === transactions.length)).toBe(true);
    expect(pages.at(-1)!.next).toBeNull();
    expect(pages.at(-1)!.count).toBe(transactions.length - 7 * (pages.length - 1));
    expect(pages.slice(0, -1).every((p) => p.count === 7 && p.next)).toBe(true);
  });

  it('answers an offset past the end with no items, the true total and no next page', async () => {
    const page = await server.json(`/api/public/rcn/transactions?offset=${transactions.length + 10}&marketType=1`);
    expect(page.items).toEqual([]);
    expect(page.pagination).toMatchObject({ count: 0, total: matching(transactions, transactionFilters, { marketType: '1' }).length, next: null });
  });
});

/**
 * A tiny box at the middle of a parcel with no vertex of its property's shapes in it (a flat's
 * unit is a point, often there): only testing the shapes themselves finds that property.
 */
function boxWithNoVertex(): Box {
  for (const property of properties) {
    const ring: number[][] | undefined = property.parcels[0]?.geometry.coordinates[0];
    if (!ring) continue;
    const xs = ring.map((p) => p[0]!),
      ys = ring.map((p) => p[1]!);
    const [cx, cy] = [(Math.min(...xs) + Math.max(...xs)) / 2, (Math.min(...ys) + Math.max(...ys)) / 2];
    const box: Box = [cx - 0.00001, cy - 0.00001, cx + 0.00001, cy + 0.00001];
    if (shapeMeetsBox(ring, box) && !shapesOf(property).some((shape) => shape.some((point) => inBox(point, box)))) return box;
  }
  throw new Error('no parcel holds a box with no vertex in it');
}

describe('GET /api/public/rcn/properties', () => {
  const cases = (): Record<string, string>[] => {
    const multi = transactions.find((t) => t.property_ids.length > 1)!;
    const shared = properties.flatMap((p) => p.parcels.map((parcel: Row) => parcel.id)).find((id, i, all) => all.indexOf(id) !== i)!;
    const flat = properties.find((p) => p.property_type_code === 4)!;
    const ring: number[][] = flat.parcels[0].geometry.coordinates[0];
    const xs = ring.map((p) => p[0]!),
      ys = ring.map((p) => p[1]!);
    const [cx, cy] = [(Math.min(...xs) + Math.max(...xs)) / 2, (Math.min(...ys) + Math.max(...ys)) / 2];
    const box = (b: number[]) => b.map((n) => n.toFixed(7)).join(',');
    return [
      {},
      { grossPriceFrom: '1000000' },
      { grossPriceTo: '300000' },
      { landAreaFrom: '1000', landAreaTo: '5000.5' },
      { propertyType: '4' },
      { propertyType: '1' },
      { propertyRightType: '2' },
      { transactionGmlId: multi.transaction_gml_id },
      { parcelIdentifier: flat.parcels[0].id },
      { parcelIdentifier: shared },
      { address: flat.parcels[0].address.street.slice(4, 9).toUpperCase() },
      { address: '12' },
      { address: 'warsz' },
      { bbox: box([cx - 0.00005, cy - 0.00005, cx + 0.00005, cy + 0.00005]) }, // inside one parcel: no vertex in the box
      { bbox: box([cx, Math.min(...ys) - 0.001, cx + 0.01, Math.max(...ys) + 0.001]) }, // cuts through the parcel
      { bbox: box([Math.min(...xs), Math.min(...ys), Math.min(...xs) + 0.000002, Math.min(...ys) + 0.000002]) }, // the extent's corner, outside the turned parcel
      { bbox: box(boxWithNoVertex()) }, // inside a parcel, and no vertex of the property in it
      { bbox: '20.98,52.21,21.04,52.25' },
      { bbox: '19.0,50.0,19.1,50.1' },
      { propertyType: '4', address: 'ul', bbox: '20.9,52.15,21.1,52.3', grossPriceFrom: '600000' },
      // Bounds finer than the columns keep, either side of the flat's own price and area.
      { landAreaFrom: finerBound(flat.land_area_m2, 'above'), grossPriceTo: finerBound(flat.gross_price, 'below') },
      { landAreaTo: finerBound(flat.land_area_m2, 'below'), grossPriceFrom: finerBound(flat.gross_price, 'above') },
      { landAreaFrom: finerBound(flat.land_area_m2, 'below'), landAreaTo: finerBound(flat.land_area_m2, 'above') },
    ];
  };

  it('filters exactly as the spec says, alone and combined, in a stable order with a true total', async () => {
    for (const query of cases()) {
      const expected = matching(properties, propertyFilters, query).map((p) => p.property_gml_id);
      const { items, pages } = await walk(`/api/public/rcn/properties?${new URLSearchParams({ ...query, limit: '100' })}`);
      expect(
        items.map((p) => p.id),
        JSON.stringify(query),
      ).toEqual(expected);
      expect(
        pages.every((p) => p.total === expected.length),
        JSON.stringify(query),
      ).toBe(true);
    }
  });

  it('has boxes where the extent of a property would mislead: inside one parcel, cutting one, in its extent but off its shapes, with no vertex in them', () => {
    const [inside, cutting, corner, noVertex] = cases().slice(13, 17);
    expect(matching(properties, propertyFilters, inside!).length).toBeGreaterThan(0);
    expect(matching(properties, propertyFilters, noVertex!).length).toBeGreaterThan(0);
    expect(matching(properties, propertyFilters, cutting!).length).toBeGreaterThan(0);
    const flat = properties.find((p) => p.property_type_code === 4)!;
    const [w, s, e, n] = corner!.bbox!.split(',').map(Number);
    expect(flat.min_lon <= e! && flat.max_lon >= w! && flat.min_lat <= n! && flat.max_lat >= s!).toBe(true);
    expect(matching(properties, propertyFilters, corner!).map((p) => p.property_gml_id)).not.toContain(flat.property_gml_id);
  });

  it('walks a filtered list without overlap or gap', async () => {
    const expected = matching(properties, propertyFilters, { propertyType: '4' }).map((p) => p.property_gml_id);
    const { items, pages } = await walk('/api/public/rcn/properties?propertyType=4&limit=13');
    expect(items.map((p) => p.id)).toEqual(expected);
    expect(pages.at(-1)!.next).toBeNull();
  });

  it('lists properties by first sale, the earliest document date of the transactions listing them, then by id', async () => {
    const firstSale = new Map<string, string>();
    for (const t of transactions)
      for (const id of t.property_ids) if (!firstSale.has(id) || t.document_date < firstSale.get(id)!) firstSale.set(id, t.document_date);
    const expected = [...firstSale].sort(([a, x], [b, y]) => (x < y ? -1 : x > y ? 1 : a < b ? -1 : 1)).map(([id]) => id);
    const { items } = await walk('/api/public/rcn/properties?limit=100');
    expect(items.map((p) => p.id)).toEqual(expected);
    expect(new Set(properties.map((p) => p.first_document_date))).not.toContain(null);
  });
});

describe('a decimal bound finer than its column', () => {
  const price = column.decimal(15, 2, { en: 'A price.', pl: 'Cena.' });
  it('is rounded toward keeping the same rows: up as a lower bound, down as an upper one, on either side of zero', () => {
    expect(boundAtScale(price, '100.001', 'up')).toBe('100.01');
    expect(boundAtScale(price, '100.001', 'down')).toBe('100.00');
    expect(boundAtScale(price, '-100.001', 'up')).toBe('-100.00');
    expect(boundAtScale(price, '-100.001', 'down')).toBe('-100.01');
    expect(boundAtScale(price, '0.0001', 'up')).toBe('0.01');
    expect(boundAtScale(price, '99.999', 'up')).toBe('100.00');
    expect(boundAtScale(price, '100.010000', 'up')).toBe('100.01');
    expect(boundAtScale(price, '100.5', 'up')).toBe('100.5');
    expect(boundAtScale(price, '100', 'down')).toBe('100');
  });
});
