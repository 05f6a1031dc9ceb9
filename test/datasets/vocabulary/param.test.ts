import { describe, expect, it } from 'vitest';
import { datasets } from '../../../datasets/index.ts';

const endpoint = (path: string) => {
  const found = datasets.flatMap((d) => d.endpoints).find((e) => e.fullPath === path);
  if (!found) throw new Error(`no endpoint ${path}`);
  return found;
};

/** Each bad input with the parameter to blame and a fragment of the message. */
const badInputs: [string, Record<string, string>, string, string][] = [
  ['/api/public/rcn/transactions', { limit: '101' }, 'limit', 'from 1 to 100'],
  ['/api/public/rcn/transactions', { limit: '-1' }, 'limit', 'from 1 to 100'],
  ['/api/public/rcn/transactions', { limit: 'abc' }, 'limit', 'whole number'],
  ['/api/public/rcn/transactions', { limit: '1.5' }, 'limit', 'whole number'],
  ['/api/public/rcn/transactions', { offset: '-5' }, 'offset', 'whole number'],
  ['/api/public/rcn/transactions', { documentDateFrom: '2024-13-45' }, 'documentDateFrom', 'YYYY-MM-DD'],
  ['/api/public/rcn/transactions', { grossPriceFrom: '12,5' }, 'grossPriceFrom', 'decimal'],
  ['/api/public/rcn/transactions', { transactionType: 'one' }, 'transactionType', 'whole number'],
  ['/api/public/rcn/transactions', { version: 'v2' }, 'version', 'v1'],
  ['/api/public/rcn/properties', { bbox: '21,52,20,53' }, 'bbox', 'min ≤ max'],
  ['/api/public/rcn/properties', { bbox: '1,2,3' }, 'bbox', 'minLongitude'],
  ['/api/public/citybike/rides', { to: '2025-01-01' }, 'from', 'required'],
  ['/api/public/citybike/rides', { from: '2025-01-01' }, 'to', 'required'],
  ['/api/public/citybike/rides', { from: '2025-02-01', to: '2025-01-01' }, 'to', 'not be before from'],
  ['/api/public/citybike/rides', { from: '2024-01-01', to: '2025-01-01' }, 'to', '366 days'],
  ['/api/public/citybike/rides', { from: '2025-01-01', to: '2025-01-02', pageSize: '0' }, 'pageSize', 'from 1 to 500'],
  ['/api/public/citybike/rides', { from: '2025-01-01', to: '2025-01-02', pageSize: '501' }, 'pageSize', 'from 1 to 500'],
  ['/api/public/citybike/rides', { from: '2025-01-01', to: '2025-01-02', page: '0' }, 'page', 'whole number'],
  ['/api/public/citybike/rides', { from: '2025-01-01', to: '2025-01-02', timezone: 'Mars/Olympus' }, 'timezone', 'IANA'],
  ['/api/public/bike-counter/counters/{counterId}/readings', { counterId: 'x', from: '2025-01-01' }, 'to', 'required'],
];

describe('endpoint parameters', () => {
  it.each(badInputs)('%s rejects %j, blaming the parameter', (path, raw, param, message) => {
    const result = endpoint(path).parse(raw);
    expect(result.success).toBe(false);
    const issue = result.error!.issues.find((i) => i.path[0] === param);
    expect(issue?.message).toContain(message);
  });

  it('blames only the bad parameter, not a range rule over its unread value', () => {
    const result = endpoint('/api/public/citybike/rides').parse({ from: 'yesterday', to: '2025-01-02' });
    expect(result.error!.issues.map((issue) => [issue.path[0], issue.message])).toEqual([['from', expect.stringContaining('YYYY-MM-DD')]]);
  });

  it('applies the documented defaults', () => {
    expect(endpoint('/api/public/rcn/transactions').parse({}).data).toMatchObject({ limit: 100, offset: 0 });
    expect(endpoint('/api/public/citybike/rides').parse({ from: '2025-01-01', to: '2025-01-02' }).data).toMatchObject({
      page: 1,
      pageSize: 100,
      timezone: 'UTC',
    });
  });

  it('accepts the spec limits at their edges', () => {
    expect(endpoint('/api/public/rcn/transactions').parse({ limit: '100', offset: '0', version: 'v1' }).success).toBe(true);
    const rides = endpoint('/api/public/citybike/rides');
    expect(rides.parse({ from: '2024-01-01', to: '2024-12-31', pageSize: '500' }).success).toBe(true); // 366 days, leap year
    expect(rides.parse({ from: '2025-01-01', to: '2026-01-01' }).success).toBe(true); // 366 days
  });

  it('reads a bbox into numbers', () => {
    expect(endpoint('/api/public/rcn/properties').parse({ bbox: '20.95,52.2,21.05,52.26' }).data).toMatchObject({
      bbox: { minLon: 20.95, minLat: 52.2, maxLon: 21.05, maxLat: 52.26 },
    });
  });
});
