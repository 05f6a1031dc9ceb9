import { instantMs, ISO_INSTANT } from '../../core/zoned-time.ts';

/**
 * What turning an upstream resource back into a table row needs besides the resource: which
 * request it came from (a reading does not name its counter; the path does), when it was fetched
 * (live captures), and how links inside JSON of unshown shape become relative to {base_url}.
 */
export interface ParseContext {
  /** Path and query parameters of the request, e.g. { counterId: 'most-poniatowskiego' }. */
  readonly params: Readonly<Record<string, string>>;
  /** The request's path relative to the data set, e.g. `/dictionaries/land-uses`. */
  readonly path: string;
  /** Epoch ms of the fetch: the capture time of live data. */
  readonly fetchedAt: number;
  json(value: unknown): unknown;
  /**
   * Says that what a filter needs could not be found in this record (a property's parcels hold
   * nothing that looks like a parcel identifier, say): the pull reports it, naming the filter.
   */
  unread(filter: string): void;
}

/** The spec's link fields: derived from ids when rendering, so never stored and never compared. */
export const linkFields: ReadonlySet<string> = new Set([
  'uri',
  'termUri',
  'propertyUri',
  'transactionUri',
  'seasonUri',
  'startedZoneUri',
  'finishedZoneUri',
  'counterUri',
  'sensorUri',
  'next',
]);

const NOTHING: ReadonlySet<string> = new Set();

// Written with plain loops and no inner functions: this runs for every record a pull stores.

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Two strings naming the same instant, whatever their offsets. */
const sameInstant = (a: string, b: string): boolean =>
  a.length >= 16 && b.length >= 16 && a[10] === 'T' && b[10] === 'T' && ISO_INSTANT.test(a) && ISO_INSTANT.test(b) && instantMs(a) === instantMs(b);

function sameValue(a: unknown, b: unknown, zoned: boolean): boolean {
  if (a === b) return true;
  if (typeof a === 'string') return zoned && typeof b === 'string' && sameInstant(a, b);
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameValue(a[i], b[i], zoned)) return false;
    return true;
  }
  if (!isRecord(a) || !isRecord(b)) return false;
  for (const key in a) if (!linkFields.has(key) && !sameValue(a[key], b[key], zoned)) return false;
  for (const key in b) if (!(key in a) && b[key] !== undefined && !linkFields.has(key)) return false;
  return true;
}

/**
 * What an upstream record holds beyond its row rendered again, as an RFC 7386 merge patch: fields
 * the spec does not name, and values written otherwise. Links are left out (rendering derives
 * them). With `zoned`, instants compare by the moment they name, whatever offset they are written
 * in: the resource's instants are shown in the time zone a request asks for. Otherwise an instant
 * written otherwise (`2022-01-01T00:00:00+01:00` for `2021-12-31T23:00:00+00:00`) is kept as
 * written, as everything else is. Undefined when the row renders the record exactly.
 */
export function patchOf(original: unknown, rendered: unknown, ignore: ReadonlySet<string> = NOTHING, zoned = true): unknown {
  if (!isRecord(original) || !isRecord(rendered)) return sameValue(original, rendered, zoned) ? undefined : original;
  let patch: Record<string, unknown> | undefined;
  // A field rendered as undefined is absent, as it is once the resource is JSON.
  for (const key in original) {
    if (linkFields.has(key) || ignore.has(key)) continue;
    const value = original[key];
    const part = rendered[key] !== undefined ? patchOf(value, rendered[key], NOTHING, zoned) : value;
    if (part !== undefined) (patch ??= {})[key] = part;
  }
  for (const key in rendered) {
    if (rendered[key] !== undefined && !(key in original) && !linkFields.has(key) && !ignore.has(key)) (patch ??= {})[key] = null;
  }
  return patch;
}
