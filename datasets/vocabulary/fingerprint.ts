import { createHash } from 'node:crypto';
import { instantMs, ISO_INSTANT } from '../../core/zoned-time.ts';
import { linkFields } from './parse.ts';

/**
 * What a record says, as a short hash: its fields in sorted order, links left out (they depend on
 * where it was served from) and instants as the moment they name (whatever their offset). Two
 * readings of an unchanged record agree, which is how pull knows a detail need not be fetched.
 */
export function fingerprint(record: unknown): string {
  return createHash('sha1').update(canonical(record)).digest('base64url').slice(0, 16);
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([key, v]) => v !== undefined && !linkFields.has(key))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, v]) => `${JSON.stringify(key)}:${canonical(v)}`).join(',')}}`;
  }
  if (typeof value === 'string' && ISO_INSTANT.test(value)) return String(instantMs(value));
  return JSON.stringify(value);
}
