import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';

/** The snapshot layout this code writes and reads. Bump it when files move or change meaning. */
export const LAYOUT_VERSION = 1;

export const MANIFEST_FILE = 'manifest.json';

const fileEntry = z.object({
  /** Relative to the snapshot directory, with `/`. */
  path: z.string(),
  rows: z.number().int().nonnegative(),
  bytes: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** Hive partition values of the file, e.g. { counter_id: 'abc', year: '2024' }. */
  partition: z.record(z.string(), z.string()),
  /** Earliest and latest value of the table's time column in the file, so clients can skip files. */
  min: z.string().nullable(),
  max: z.string().nullable(),
});

const tableEntry = z.object({
  rows: z.number().int().nonnegative(),
  columns: z.array(z.object({ name: z.string(), type: z.string(), nullable: z.boolean() })),
  key: z.array(z.string()).nullable(),
  partitionBy: z.array(z.object({ name: z.string(), column: z.string(), part: z.enum(['year', 'month', 'day']).optional() })),
  sortBy: z.array(z.string()),
  timeColumn: z.string().nullable(),
  files: z.array(fileEntry),
});

const sampleSettings = { scale: z.string(), seed: z.number().int(), until: z.string() };
const source = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('sample'), ...sampleSettings }),
  /** `sample`: the upstream was odsnap serving its sample city (what `odsnap start` pulls by default). */
  /** `publicBase`: the address the upstream writes its links on, when it is not the one pulled from. */
  /** `escapes`: the escapes its every answer wrote where JSON lets a writer choose (`\/`, `\uXXXX` past ASCII), when it wrote any. */
  z.object({
    kind: z.literal('pull'),
    upstream: z.string(),
    publicBase: z.string().optional(),
    escapes: z.object({ slash: z.literal(true).optional(), nonAscii: z.enum(['lower', 'upper']).optional() }).optional(),
    sample: z.object(sampleSettings).optional(),
  }),
]);

/** Records a pull could not store because they failed validation: kept verbatim, one JSON line each, with the reason. */
const quarantineEntry = z.object({
  records: z.number().int().positive(),
  path: z.string(),
  bytes: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});

/** What a pull changed against the snapshot before it (see changes.ts). */
const changesEntry = z.object({
  from: z.string(),
  path: z.string(),
  bytes: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});

/**
 * Which rows an endpoint's from..to range of days returns, where the spec does not say: learned
 * by a pull from the answers to its windows (scripts/pull/range-rules.ts), and what it could not
 * learn. A mirror applies what was learned; where nothing was, it answers as the sample city does
 * (rows by their start, up to the next midnight, not including it).
 */
export const rangeRule = z.object({
  /** Whether a `to` day includes the instant of the next midnight (an hourly reading at 00:00 of the day after). */
  toInclusive: z.boolean().optional(),
  /** Which rows a range returns: those that start in it, those that end in it, or those that overlap it. */
  by: z.enum(['start', 'end', 'overlap']).optional(),
  /** What the answers did not show. */
  unknown: z.array(z.enum(['toInclusive', 'by'])).optional(),
});
export type RangeRule = z.infer<typeof rangeRule>;

/** What an upstream's own envelope key may follow: the records a range or filters match, their pages, and this page (see datasets/answers/envelope.ts). */
export const FACTS = ['total', 'pages', 'count', 'page', 'pageSize'] as const;
export type Fact = (typeof FACTS)[number];

/** An answer's envelope as its upstream writes it (see datasets/answers/envelope.ts). */
export const envelopeTemplate = z.object({
  /** One answer's envelope as written, its records left out (`[]`), the spec's other values null, links relative to {base_url}. */
  text: z.string(),
  /** The upstream's own keys (dotted paths) whose value follows the page, with what each is. */
  derived: z.record(z.string(), z.enum(FACTS)).optional(),
  /** Its own keys whose value varied by no rule odsnap knows, or not in every answer: left out. */
  unknown: z.array(z.string()).optional(),
});
export type EnvelopeTemplate = z.infer<typeof envelopeTemplate>;

/**
 * How a list's `next` link is written (the spec: "non-null form: not shown"): on the public
 * address, as a path and query, or as a query alone; its query in the order it was asked (limit
 * and offset where they stand, or after the rest), or in the order the spec lists the
 * endpoint's parameters.
 */
export const nextRule = z.object({
  form: z.enum(['absolute', 'path', 'query']),
  order: z.enum(['asked', 'declared']),
});
export type NextRule = z.infer<typeof nextRule>;

/** How an upstream writes offsets in a time zone it is asked for (see core/zoned-time.ts). */
const OFFSET_FORMS = ['+hh:mm', '+hhmm', '+hh'] as const;
export const zoneOffsets = z.object({ nonZero: z.enum(OFFSET_FORMS), zero: z.enum(['Z', ...OFFSET_FORMS]) });

export const manifestSchema = z.object({
  layoutVersion: z.literal(LAYOUT_VERSION),
  id: z.string(),
  createdAt: z.iso.datetime({ offset: true }),
  source,
  licence: z.object({ id: z.string(), name: z.string(), url: z.url(), attribution: z.string() }),
  datasets: z.record(z.string(), z.object({ tables: z.record(z.string(), tableEntry) })),
  /** By data set; absent when nothing was quarantined. */
  quarantine: z.record(z.string(), quarantineEntry).optional(),
  /**
   * By data set and filter: records in which a pull found nothing of what the filter reads (say,
   * no parcel identifier in a property's parcels), so the filter cannot match them; how many, and
   * the address of one. Absent when everything was found.
   */
  unread: z.record(z.string(), z.record(z.string(), z.object({ records: z.number().int().positive(), example: z.string() }))).optional(),
  /**
   * By endpoint (full path): what its upstream's answers showed beyond their records, where the
   * spec leaves it room: `defaults`, query values applied to a request that leaves them out (the
   * page size of a list asked without `limit`), and `envelope`, keys every answer's envelope had
   * beyond the spec's, links relative to {base_url}; `range`, which rows a from..to range
   * returns (see rangeRule). A mirror answers with them too.
   */
  endpoints: z
    .record(
      z.string(),
      z.object({
        defaults: z.record(z.string(), z.string()).optional(),
        envelope: z.record(z.string(), z.unknown()).optional(),
        /** The envelope as the upstream writes it: key order, its own keys' text, those that follow the page (see envelope.ts). */
        template: envelopeTemplate.optional(),
        /** How its `next` links are written. */
        next: nextRule.optional(),
        range: rangeRule.optional(),
        /** How it writes offsets in a time zone it is asked for (see ZoneOffsets). */
        zoneOffsets: zoneOffsets.optional(),
        /** What its answers did not show of the envelope or `next`, said as the pull's summary says it. */
        unlearned: z.array(z.string()).optional(),
      }),
    )
    .optional(),
  /** Absent for a snapshot with none before it, and for the sample's. */
  changes: changesEntry.optional(),
});

export type Manifest = z.infer<typeof manifestSchema>;
export type TableManifest = z.infer<typeof tableEntry>;
export type FileManifest = z.infer<typeof fileEntry>;
export type QuarantineManifest = z.infer<typeof quarantineEntry>;
export type ChangesManifest = z.infer<typeof changesEntry>;
export type SnapshotSource = z.infer<typeof source>;
export type EndpointManifest = NonNullable<Manifest['endpoints']>[string];

export const licence = (attribution: string): Manifest['licence'] => ({
  id: 'CC-BY-4.0',
  name: 'Creative Commons Attribution 4.0 International',
  url: 'https://creativecommons.org/licenses/by/4.0/',
  attribution,
});

/** Whether a snapshot's records are the synthetic sample city's, pulled directly or through its v1 interface: not real data. */
export const isSynthetic = (source: SnapshotSource): boolean => source.kind === 'sample' || source.sample !== undefined;

export function attributionFor(source: SnapshotSource): string {
  if (source.kind === 'sample') return syntheticAttribution(source, '');
  if (source.sample) return syntheticAttribution(source.sample, ', pulled through its v1 interface');
  return `Source: ${source.upstream}, published under the Creative Commons Attribution 4.0 International licence. Snapshot made with odsnap.`;
}

const syntheticAttribution = (sample: { scale: string; seed: number; until: string }, how: string) =>
  `Synthetic sample city generated by odsnap (scale ${sample.scale}, seed ${sample.seed}, until ${sample.until})${how}; not real records. Shaped after the public open-data service's v1 interface, whose data is published under CC BY 4.0.`;

export async function readManifest(snapshotDir: string): Promise<Manifest> {
  const path = join(snapshotDir, MANIFEST_FILE);
  const text = await readFile(path, 'utf8');
  const parsed = manifestSchema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`${path} is not a valid odsnap manifest: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}
