import type { EndpointManifest, RangeRule } from '../../core/snapshot/manifest.ts';
import type { ZoneOffsets } from '../../core/zoned-time.ts';
import { FACTS, learnEnvelope, learnNext } from '../../datasets/answers/envelope.ts';
import type { Dataset } from '../../datasets/vocabulary/dataset.ts';
import type { EndpointObservations } from './crawl/observations.ts';
import type { Normalizer } from './normalize.ts';
import type { Previous } from './previous.ts';

/** What a pull saw that its endpoints' entries in the manifest are learned from (see PulledSnapshotOptions). */
export interface Seen {
  readonly datasets: readonly Dataset[];
  /** The data sets pulled this time, by name (their plans' keys). */
  readonly plans: ReadonlyMap<string, unknown>;
  readonly previous: Previous | undefined;
  readonly endpoints: Readonly<Record<string, EndpointObservations>>;
  readonly upstream: string;
  readonly publicBase?: string;
}

/**
 * What the snapshot keeps of each endpoint's answers beyond their records: what this pull saw of
 * the data sets it pulled (envelopes' links made relative, as records' are), and the previous
 * snapshot's for the others.
 */
export function endpointsLearned(
  options: Seen,
  normalizers: ReadonlyMap<string, Normalizer>,
  ranges: ReadonlyMap<string, RangeRule>,
): Record<string, EndpointManifest> {
  const pulled = (path: string) => options.datasets.find((d) => path.startsWith(`${d.prefix}/`) && options.plans.has(d.name));
  const kept = Object.entries(options.previous?.snapshot.manifest.endpoints ?? {}).filter(([path]) => !pulled(path));
  const previousRange = (path: string) => options.previous?.snapshot.manifest.endpoints?.[path]?.range;
  const paths = [...new Set([...Object.keys(options.endpoints), ...ranges.keys()])];
  const seen = paths.map((path): [string, EndpointManifest] => {
    const { defaults, envelopes, nexts, zoneOffsets: offsetsSeen } = options.endpoints[path] ?? {};
    const dataset = pulled(path);
    const normalizer = normalizers.get(dataset?.name ?? '')!;
    // What an incremental pull's few windows did not show, the pulls before it may have.
    const range = ranges.get(path) && withEarlier(ranges.get(path)!, previousRange(path));
    const { template, constant } = learnEnvelope(envelopes ?? []);
    const endpoint = dataset?.endpoints.find((e) => e.fullPath === path);
    const next = nexts?.length && endpoint ? learnNext(nexts, endpoint, options.publicBase ?? options.upstream) : undefined;
    const zoneOffsets = zoneOffsetsOf(offsetsSeen, options.previous?.snapshot.manifest.endpoints?.[path]?.zoneOffsets);
    const unlearned = [
      ...(template?.unknown ?? []).map(
        (key) => `${path}: the envelope's \`${key}\` varies by no rule odsnap knows (${FACTS.join(', ')}), or is not in every answer; left out`,
      ),
      ...(nexts?.length && !next ? [`${path}: how \`next\` is written (e.g. ${nexts[0]!.next}); written on the mirror's address, in the order asked`] : []),
      ...(endpoint && 'timezone' in endpoint.params && !zoneOffsets
        ? [`${path}: how offsets are written in a time zone asked (no window with rows, or answers that disagreed); written in the form of the offsets stored`]
        : []),
    ];
    return [
      path,
      {
        ...(defaults ? { defaults } : {}),
        ...(Object.keys(constant).length ? { envelope: normalizer.relative(constant) as Record<string, unknown> } : {}),
        ...(template ? { template: { ...template, text: normalizer.relativeText(template.text) } } : {}),
        ...(next ? { next } : {}),
        ...(range ? { range } : {}),
        ...(zoneOffsets ? { zoneOffsets } : {}),
        ...(unlearned.length ? { unlearned } : {}),
      },
    ];
  });
  return Object.fromEntries([...kept, ...seen].sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** How offsets are written in a zone, where both forms were seen now or, for a pull that asked no window, before. */
function zoneOffsetsOf(seen: Partial<ZoneOffsets> | undefined, earlier: ZoneOffsets | undefined): ZoneOffsets | undefined {
  if (seen?.nonZero && seen.zero) return { nonZero: seen.nonZero, zero: seen.zero };
  return seen?.nonZero || seen?.zero ? undefined : earlier;
}

/** A rule learned now, what it left unknown filled in from the one learned before. */
function withEarlier(rule: RangeRule, earlier: RangeRule | undefined): RangeRule {
  if (!earlier || !rule.unknown) return rule;
  const merged: { -readonly [K in keyof RangeRule]: RangeRule[K] } = { ...rule };
  if (merged.toInclusive === undefined && earlier.toInclusive !== undefined) merged.toInclusive = earlier.toInclusive;
  if (merged.by === undefined && earlier.by !== undefined) merged.by = earlier.by;
  const unknown = (rule.unknown ?? []).filter((what) => merged[what] === undefined);
  if (unknown.length) merged.unknown = unknown;
  else delete merged.unknown;
  return merged;
}
