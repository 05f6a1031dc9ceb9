import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datasets } from '../../../../datasets/index.ts';
import { answerAs } from '../../../../datasets/answers/index.ts';
import type { RowScan } from '../../../../datasets/answers/page/scan.ts';
import { readTable } from '../../../../core/snapshot/read.ts';
import { Random } from '../../../../datasets/vocabulary/random.ts';
import { startTestServer, type TestServer } from '../../../fixtures/server.ts';
import { tinySnapshot, withDatabase } from '../../../fixtures/tiny.ts';

/**
 * Pages whose filters are plain equalities and ranges are found by a scan of typed columns in the
 * server's process (datasets/answers/page/scan.ts), others by a DuckDB statement. The two must
 * answer every request alike, byte for byte: a server that scans is compared with one that never
 * does, over HTTP, on requests drawn from the tiny sample's own values and on the edges of what
 * numbers can hold.
 */

type Row = Record<string, any>;
const rcn = datasets.find((d) => d.name === 'rcn')!;

let scanning: TestServer;
let querying: TestServer;
let transactions: Row[];
let properties: Row[];

beforeAll(async () => {
  // One public URL, so that both write the same links.
  [scanning, querying] = await Promise.all([
    startTestServer({ publicUrl: 'http://odsnap.test' }),
    startTestServer({ publicUrl: 'http://odsnap.test', inProcess: false }),
  ]);
  await withDatabase(async (db) => {
    const snapshot = await tinySnapshot();
    transactions = await readTable(db, snapshot, rcn, 'transactions');
    properties = await readTable(db, snapshot, rcn, 'properties');
  });
});
afterAll(async () => {
  await scanning?.close();
  await querying?.close();
});

async function sameAnswers(paths: readonly string[]): Promise<void> {
  for (const path of paths) {
    const [scanned, queried] = await Promise.all([scanning.fetch(path), querying.fetch(path)]);
    expect(scanned.status, path).toBe(queried.status);
    expect(await scanned.text(), path).toBe(await queried.text());
  }
}

/** A decimal just past a stored one, by a digit finer than its column (a lower bound that must drop it). */
const finer = (decimal: string, digit: string) => `${decimal}${'0'.repeat(Math.max(0, 4 - decimal.split('.')[1]!.length - 1))}${digit}`;

describe('a page found by a scan in the server', () => {
  it('is the page DuckDB finds, for any mix of the transactions filters', async () => {
    const random = new Random('page-scan-transactions');
    const pick = () => random.pick(transactions);
    const draws: Record<string, () => string> = {
      transactionIdentifier: () => (random.chance(0.8) ? pick().transaction_identifier : 'no such identifier'),
      documentDateFrom: () => pick().document_date,
      documentDateTo: () => pick().document_date,
      grossPriceFrom: () => (random.chance(0.5) ? pick().gross_price : finer(pick().gross_price, random.pick(['1', '9']))),
      grossPriceTo: () => (random.chance(0.5) ? pick().gross_price : finer(pick().gross_price, random.pick(['1', '9']))),
      transactionType: () => String(random.chance(0.9) ? pick().transaction_type_code : 99),
      marketType: () => String(random.chance(0.9) ? pick().market_type_code : 0),
      sellerPartyType: () => String(pick().seller_party_type_code),
      buyerPartyType: () => String(pick().buyer_party_type_code),
    };
    const paths = Array.from({ length: 150 }, () => {
      const query = new URLSearchParams({ limit: String(random.int(1, 40)), offset: String(random.int(0, transactions.length)) });
      for (const [param, draw] of Object.entries(draws)) if (random.chance(0.3)) query.set(param, draw());
      return `/api/public/rcn/transactions?${query}`;
    });
    await sameAnswers(paths);
  });

  it('is the page DuckDB finds at the edges: bounds past every value, finer than DuckDB casts, empty ranges, no filter', async () => {
    const t = '/api/public/rcn/transactions?limit=5';
    await sameAnswers([
      t,
      `${t}&offset=${transactions.length - 2}`,
      `${t}&offset=${transactions.length + 3}`,
      `${t}&grossPriceFrom=-999999999999999.9999`,
      `${t}&grossPriceFrom=999999999999999`,
      `${t}&grossPriceTo=0`,
      `${t}&grossPriceFrom=-0`,
      `${t}&grossPriceFrom=${transactions[3]!.gross_price}00001`, // rounded to the column's scale first, on either path
      `${t}&grossPriceFrom=500000&grossPriceTo=400000`,
      `${t}&documentDateFrom=0001-01-01&documentDateTo=9999-12-31`,
      `${t}&documentDateFrom=2025-02-01&documentDateTo=2025-01-31`,
      `${t}&marketType=32767`,
      `${t}&marketType=1&marketType=2`,
      `${t}&transactionIdentifier=`,
    ]);
  });

  it('is the page DuckDB finds for the properties filters, alone or beside those only DuckDB answers', async () => {
    const random = new Random('page-scan-properties');
    const pick = () => random.pick(properties);
    const draws: Record<string, () => string> = {
      grossPriceFrom: () => pick().gross_price ?? '0',
      grossPriceTo: () => pick().gross_price ?? '0',
      landAreaFrom: () => (random.chance(0.5) ? (pick().land_area_m2 ?? '1') : finer(pick().land_area_m2 ?? '1.0', '1')),
      landAreaTo: () => pick().land_area_m2 ?? '100000',
      propertyType: () => String(pick().property_type_code),
      propertyRightType: () => String(pick().property_right_type_code ?? 1),
      address: () => random.pick(pick().parcels.map((p: Row) => String(p.address.street).slice(0, 4))),
    };
    const paths = Array.from({ length: 80 }, () => {
      const query = new URLSearchParams({ limit: String(random.int(1, 30)), offset: String(random.int(0, 20)) });
      for (const [param, draw] of Object.entries(draws)) if (random.chance(param === 'address' ? 0.15 : 0.35)) query.set(param, draw());
      return `/api/public/rcn/properties?${query}`;
    });
    await sameAnswers(paths);
  });

  it('runs where its filters allow, and leaves the rest to DuckDB', () => {
    const served = scanning.host.current;
    const transactions = rcn.endpoints.find((e) => e.path === '/transactions')!;
    const transactionsScan = served.tables.inProcess(transactions) as RowScan;
    const page = answerAs(transactions.answer, 'page')!;
    expect(transactionsScan.page(page.filters, { marketType: 1, documentDateFrom: '2025-01-01', grossPriceFrom: '1.00001' }, 10, 0)).toBeDefined();
    const properties = rcn.endpoints.find((e) => e.path === '/properties')!;
    const propertiesPage = answerAs(properties.answer, 'page')!;
    const propertiesScan = served.tables.inProcess(properties) as RowScan;
    expect(propertiesScan.page(propertiesPage.filters, { propertyType: 1 }, 10, 0)).toBeDefined();
    expect(propertiesScan.page(propertiesPage.filters, { propertyType: 1, address: 'mar' }, 10, 0)).toBeUndefined();
    expect(querying.host.current.tables.inProcess(transactions)).toBeUndefined();
  });
});
