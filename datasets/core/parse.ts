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
}

/** The spec's link fields: derived from ids when rendering, so never stored and never compared. */
export const linkFields: ReadonlySet<string> = new Set([
  'uri', 'termUri', 'propertyUri', 'transactionUri', 'seasonUri', 'startedZoneUri', 'finishedZoneUri', 'counterUri', 'sensorUri', 'next',
]);

const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

const sameValue = (a: unknown, b: unknown): boolean => {
  if (a === b) return true;
  if (typeof a === 'string' && typeof b === 'string' && INSTANT.test(a) && INSTANT.test(b)) return Date.parse(a) === Date.parse(b);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => sameValue(item, b[i]));
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    return [...keys].every((key) => linkFields.has(key) || sameValue((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]));
  }
  return false;
};

/**
 * What an upstream record holds beyond its row rendered again, as an RFC 7386 merge patch: fields
 * the spec does not name, and values written otherwise. Links are left out (rendering derives
 * them) and instants compare by the moment they name, whatever offset they are written in.
 * Undefined when the row renders the record exactly.
 */
export function patchOf(original: unknown, rendered: unknown, ignore: ReadonlySet<string> = new Set()): unknown {
  const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (!isObject(original) || !isObject(rendered)) return sameValue(original, rendered) ? undefined : original;
  const patch: Record<string, unknown> = {};
  // A field rendered as undefined is absent, as it is once the resource is JSON.
  for (const [key, value] of Object.entries(original)) {
    if (linkFields.has(key) || ignore.has(key)) continue;
    const part = rendered[key] !== undefined ? patchOf(value, rendered[key]) : value;
    if (part !== undefined) patch[key] = part;
  }
  for (const [key, value] of Object.entries(rendered)) {
    if (value !== undefined && !(key in original) && !linkFields.has(key) && !ignore.has(key)) patch[key] = null;
  }
  return Object.keys(patch).length ? patch : undefined;
}
