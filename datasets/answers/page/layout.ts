import { WHOLE, type FileUnit, type TreeLayout } from '../static-files.ts';

/** A page's file: the first is the request with no query, the others `/offset/{offset}`. */
export type PageUnit = FileUnit & ({ readonly kind: 'whole' } | { readonly kind: 'offset'; readonly offset: number });

/**
 * Pages of the size a request without `limit` gets (100, or the upstream's own default):
 *
 *   /api/public/rcn/transactions.json              GET /api/public/rcn/transactions (limit 100, offset 0)
 *   /api/public/rcn/transactions/offset/200.json   …?limit=100&offset=200
 */
export const pageLayout = (limit: number): TreeLayout<PageUnit> => ({
  segments: (unit) => (unit.kind === 'offset' ? ['offset', String(unit.offset)] : []),
  unitOf: (segments) => ({ kind: 'offset', offset: Number(segments[1]) }),
  query: (unit): Record<string, string> => (unit.kind === 'offset' ? { limit: String(limit), offset: String(unit.offset) } : {}),
  unitFor(query) {
    const { limit: asked = String(limit), offset: offsetText = '0', ...others } = query;
    const offset = Number(offsetText);
    if (asked !== String(limit) || Object.keys(others).length || !Number.isInteger(offset) || offset < 0 || offset % limit) return undefined;
    return offset === 0 ? WHOLE : { kind: 'offset', offset };
  },
  pattern: { file: '/offset/{offset}', query: `?limit=${limit}&offset={offset}` },
  about: `register lists are pages of ${limit} at /offset/{offset}.json (the first page is the path itself)`,
});
