import { counted } from '../../core/progress.ts';
import { envelopeFor } from '../../datasets/answers/envelope.ts';
import { kindOf } from '../../datasets/answers/index.ts';
import type { FileSource, StaticFile } from '../../datasets/answers/static-files.ts';
import { rangeRuleOf } from '../../datasets/answers/time-range.ts';
import type { Dataset } from '../../datasets/vocabulary/dataset.ts';
import type { Endpoint } from '../../datasets/vocabulary/endpoint.ts';
import type { RenderContext } from '../../datasets/vocabulary/render.ts';
import { stringify } from '../../datasets/vocabulary/written.ts';
import type { Tables } from './build-tables.ts';
import { Listing } from './listing.ts';
import type { SnapshotPrints } from './snapshot-prints.ts';
import type { TreeOutput } from './tree-output.ts';

/**
 * The files step of a build: every endpoint's files, as its kind of answer lays them out and
 * renders them (see AnswerKind.files), each kept, made or written by the tree output, and listed.
 */

export interface FilesInput {
  readonly datasets: readonly Dataset[];
  readonly tables: Tables;
  readonly prints: SnapshotPrints;
  readonly output: TreeOutput;
  /** Prefix of links in the tree ('' for root-relative ones). */
  readonly base: string;
  /** How the files render links and instants (see static-context.ts). */
  readonly context: RenderContext;
  readonly seriesInOneScan?: number;
  readonly itemPrintsHeld?: number;
  readonly onProgress?: (event: { endpoint: string; files: number }) => void;
  readonly onStep?: (text: string) => void;
}

export interface FilesWritten {
  /** Each endpoint's files and the URL of its listing's first page, by its path. */
  readonly listed: ReadonlyMap<string, { readonly files: number; readonly listing: string }>;
  /** Files left out, each with why (a path value no file name can stand for). */
  readonly leftOut: readonly string[];
}

export async function writeFiles(input: FilesInput): Promise<FilesWritten> {
  const listed = new Map<string, { files: number; listing: string }>();
  const leftOut: string[] = [];
  for (const dataset of input.datasets) {
    for (const endpoint of dataset.endpoints) {
      const source = sourceOf(input, dataset, endpoint, (reason) => {
        leftOut.push(`${endpoint.fullPath}: ${reason}`);
      });
      const listing = new Listing(dataset, endpoint, input.base, input.output, source.defaults);
      await writeEndpoint(kindOf(endpoint.answer).tree.files(source, endpoint.answer), input.output, listing, (files) =>
        input.onProgress?.({ endpoint: endpoint.fullPath, files }),
      );
      input.onStep?.(`${endpoint.fullPath}: ${counted(listing.count, 'file')}`);
      listed.set(endpoint.fullPath, { files: listing.count, listing: listing.url(1) });
    }
  }
  return { listed, leftOut };
}

/** What an endpoint's kind renders its files from. */
function sourceOf(
  { tables, prints, context, output, seriesInOneScan, itemPrintsHeld }: FilesInput,
  dataset: Dataset,
  endpoint: Endpoint,
  leftOut: (reason: string) => void,
): FileSource {
  return {
    dataset,
    endpoint,
    rows: tables.rows,
    prints,
    context,
    previousInput: (path: string, segment?: string) => output.previousInput(path, segment),
    previousSegment: (key: string) => output.previousSegment(key),
    seriesInOneScan,
    itemPrintsHeld,
    defaults: tables.defaultsOf(endpoint),
    range: rangeRuleOf(tables.snapshot.manifest, endpoint.fullPath),
    envelope: envelopeFor(tables.upstreamOf(endpoint), context),
    leftOut,
  };
}

/** Puts an endpoint's files in the tree and lists them, telling `progress` how many so far. */
async function writeEndpoint(files: AsyncIterable<StaticFile>, output: TreeOutput, listing: Listing, progress: (files: number) => void): Promise<void> {
  let count = 0;
  for await (const file of files) {
    switch (file.type) {
      case 'segments':
        // Segments are listed whole, when the endpoint's files are all there (see Listing).
        for (const segment of file.segments) {
          if (segment.carried) await output.carrySegment(segment.key, segment.print);
          else output.openSegment(segment.key, segment.print);
          count += segment.carried ? segment.files : 0;
        }
        listing.addSegments(file.segments, file.places);
        progress(count);
        continue;
      case 'carried':
        // Most files of a rebuild: awaited only when the writers or the listing make them wait.
        for (const { path, input, segment } of file.files) {
          const carrying = output.carry(path, input, segment);
          if (carrying) await carrying;
          const listed = segment === undefined ? listing.add(path) : undefined;
          if (listed) await listed;
          count++;
          progress(count);
        }
        continue;
      case 'new-ending':
        await output.replaceEnding(file.path, file.ending, file.input);
        break;
      case 'appended':
        await output.extend(file.path, file.extend, file.input);
        break;
      case 'rendered':
        await output.write(file.path, stringify(file.body), { input: file.input, ending: file.endsWith, segment: file.segment });
        if (file.segment !== undefined) {
          count++;
          progress(count);
          continue;
        }
    }
    await listing.add(file.path);
    count++;
    progress(count);
  }
  output.closeSegments();
  await listing.finish();
}

/** The warning a build gives of files left out. */
export function leftOutWarnings(leftOut: readonly string[]): string[] {
  if (!leftOut.length) return [];
  const some = `${leftOut.slice(0, 3).join('; ')}${leftOut.length > 3 ? '; …' : ''}`;
  return [`${leftOut.length} file${leftOut.length === 1 ? '' : 's'} left out, their path values being no possible file name: ${some}`];
}
