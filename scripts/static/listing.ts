import { createHash } from 'node:crypto';
import { fileOf, requestOf } from '../../datasets/answers/tree.ts';
import type { Defaults, SegmentOfFiles } from '../../datasets/answers/static-files.ts';
import type { Dataset } from '../../datasets/vocabulary/dataset.ts';
import type { Endpoint } from '../../datasets/vocabulary/endpoint.ts';
import type { TreeOutput } from './tree-output.ts';

/** Files per page of an endpoint's listing. */
const LISTING_PAGE = 10_000;
/**
 * About as many files per page of a listing of files in segments (register items): small pages,
 * because every segment a pull changes changes its page, and a pull changes a hundred or more.
 */
const LISTING_SEGMENTED = 64;

/**
 * An endpoint's files, listed in pages of 10,000 at `/api/public/index/<data set>/<endpoint>/<n>.json`.
 * A page is made from its paths alone, so one whose paths are those of the tree in use is carried:
 * a rebuild does not work out half a million URLs and requests again. Files that come in segments
 * (see the item kind's files) are listed by segment: a page holds the segments of a range of places,
 * as many as make about LISTING_SEGMENTED files, and is carried when their prints are unchanged.
 */
export class Listing {
  count = 0;
  private paths: string[] = [];
  private segments: SegmentOfFiles[] = [];
  private places = 0;
  private page = 1;
  private readonly slug: string;

  constructor(
    private readonly dataset: Dataset,
    private readonly endpoint: Endpoint,
    private readonly base: string,
    private readonly output: TreeOutput,
    /** What the upstream defaults to for the endpoint: its files stand for requests by them. */
    private readonly defaults: Defaults = {},
  ) {
    this.slug = endpoint.path.slice(1).replace(/[{}]/g, '').replaceAll('/', '.');
  }

  url(page: number): string {
    return `${this.base}/${this.path(page)}`;
  }

  /** Returns a promise only when a page of the listing is written. */
  add(path: string): Promise<void> | undefined {
    this.count++;
    this.paths.push(path);
    return this.paths.length === LISTING_PAGE ? this.flush(true) : undefined;
  }

  /** Segments of files, listed when the endpoint's files are all there. */
  addSegments(segments: readonly SegmentOfFiles[], places: number): void {
    this.segments.push(...segments);
    this.places = places;
    for (const segment of segments) this.count += segment.files;
  }

  async finish(): Promise<void> {
    if (this.segments.length) return this.finishSegments();
    if (this.paths.length || this.page === 1) await this.flush(false);
  }

  /**
   * Pages of whole segments, by ranges of places (a power of two of them, so that a page holds
   * about LISTING_SEGMENTED files): a changed segment changes its page alone, and the ranges move
   * only when the count of files doubles or halves.
   */
  private async finishSegments(): Promise<void> {
    const span = 2 ** Math.max(0, Math.min(Math.log2(this.places), Math.round(Math.log2((this.places * LISTING_SEGMENTED) / Math.max(1, this.count)))));
    const ranges = new Map<number, SegmentOfFiles[]>();
    for (const segment of this.segments) {
      const range = Math.floor(segment.place / span);
      if (!ranges.has(range)) ranges.set(range, []);
      ranges.get(range)!.push(segment);
    }
    const pages = [...ranges.values()];
    for (const [i, segments] of pages.entries()) {
      const more = i < pages.length - 1;
      const input = createHash('sha1')
        .update(`${more}\n`)
        .update(segments.map((segment) => `${segment.key} ${segment.print}`).join('\n'))
        .digest('base64url');
      await this.writePage(more, input, () => segments.flatMap((segment) => this.output.segmentFiles(segment.key)));
    }
  }

  private path(page: number): string {
    return `api/public/index/${this.dataset.name}/${this.slug}/${page}.json`;
  }

  private async flush(more: boolean): Promise<void> {
    const input = createHash('sha1').update(`${more}\n`).update(this.paths.join('\n')).digest('base64url');
    const paths = this.paths;
    this.paths = [];
    await this.writePage(more, input, () => paths);
  }

  /** Writes the next page, or carries it when the tree in use made it from the same input. */
  private async writePage(more: boolean, input: string, paths: () => readonly string[]): Promise<void> {
    const path = this.path(this.page);
    if (this.output.previousInput(path) === input) await this.output.carry(path, input);
    else {
      const files = paths().map((file) => ({
        url: `${this.base}/${file.split('/').map(encodeURIComponent).join('/')}`,
        request: requestFor(this.endpoint, file, this.defaults),
      }));
      const body = { endpoint: this.endpoint.fullPath, page: this.page, files, next: more ? this.url(this.page + 1) : null };
      await this.output.write(path, JSON.stringify(body), { input });
    }
    this.page++;
  }
}

/** The v1 request a file of the endpoint stands for, from its path in the tree. */
function requestFor(endpoint: Endpoint, path: string, defaults: Defaults): string {
  const { values, unit } = fileOf(endpoint, path, defaults);
  const request = requestOf(endpoint, values, unit, defaults);
  const query = new URLSearchParams(request.query).toString();
  return `GET ${request.path}${query ? `?${query}` : ''}`;
}
