import { Memo } from '../core/memo.ts';
import type { Snapshot } from '../core/snapshot/read.ts';
import { viewName, type Table } from '../core/table.ts';
import type { RenderedResource, RenderedSeries } from '../datasets/answers/serving.ts';
import type { Dataset, Resource } from '../datasets/vocabulary/dataset.ts';
import { escapedInString } from '../datasets/vocabulary/written.ts';
import { RecordFile } from './record-store.ts';
import { recordFile, recordsDir } from './serve-database.ts';
import { servedSeries } from './series-files.ts';
import { SeriesFile } from './series-store.ts';
import { keptSeries, recordedResources } from './storage-plan.ts';

const NOTHING = new Uint8Array(0);

/**
 * Puts the links' base into rendered texts, byte by byte, where they hold its placeholder (the
 * token the serving database was built with): a text is rendered once for every base.
 */
class LinkBase {
  /** Bases as they go into rendered JSON, as UTF-8 (see baseBytes). */
  private readonly bases = new Memo<string, Buffer>(64);
  /** Where the token was found in the text being answered (kept between answers, which are made one at a time). */
  private positions = new Uint32Array(1024);

  constructor(private readonly token: Buffer) {}

  readonly withBase = (bytes: Buffer, base: string, before: Uint8Array = NOTHING, after: Uint8Array = NOTHING): Buffer => {
    const { token } = this;
    const baseBytes = this.baseBytes(base);
    let count = 0;
    for (let at = bytes.indexOf(token); at >= 0; at = bytes.indexOf(token, at + token.length)) {
      if (count === this.positions.length) {
        const more = new Uint32Array(2 * count);
        more.set(this.positions);
        this.positions = more;
      }
      this.positions[count++] = at;
    }
    // One buffer, the size of the answer: the base spliced in where each link's token was.
    const out = Buffer.allocUnsafe(before.length + bytes.length + count * (baseBytes.length - token.length) + after.length);
    out.set(before);
    let to = before.length;
    let from = 0;
    for (let i = 0; i < count; i++) {
      const at = this.positions[i]!;
      to += bytes.copy(out, to, from, at);
      to += baseBytes.copy(out, to);
      from = at + token.length;
    }
    to += bytes.copy(out, to, from);
    out.set(after, to);
    return out;
  };

  /** A base as it goes into rendered JSON, as UTF-8, remembered (requests come with one or a few). */
  private baseBytes(base: string): Buffer {
    return this.bases.get(base) ?? this.bases.remember(base, Buffer.from(escapedInString(base)));
  }
}

/**
 * A served snapshot's resources stored rendered: their record files (record-store.ts) and series
 * files (series-store.ts) beside its serving database, opened, and the links' base put into what
 * is read from them. A resource whose files cannot be read is answered from its rows, rendered
 * per request.
 */
export class ServedRecords {
  /** Each resource stored rendered, as answers read it, by `<data set>/<resource>`. */
  private readonly renderedOf = new Map<string, RenderedResource>();
  /** Each series kept rendered, as answers read it, by `<data set>/<series name>` (see KeptSeries). */
  private readonly seriesOf = new Map<string, RenderedSeries>();

  private constructor(
    private readonly files: ReadonlyMap<string, RecordFile>,
    private readonly seriesFiles: ReadonlyMap<string, { readonly file: SeriesFile; readonly resource: Resource }>,
    linkBase: LinkBase,
  ) {
    for (const [key, records] of files) this.renderedOf.set(key, { records, withBase: linkBase.withBase });
    for (const [key, { file, resource }] of seriesFiles) this.seriesOf.set(key, servedSeries(file, resource));
  }

  /**
   * Opens the record files of the stored tables' resources kept rendered, beside the serving
   * database at `databasePath`, whose rendered texts hold `token` in place of the links' base.
   */
  static open(
    snapshot: Snapshot,
    datasets: readonly Dataset[],
    isStored: (dataset: Dataset, table: Table) => boolean,
    databasePath: string,
    token: string,
    options: { readonly series: boolean; readonly log?: (event: Record<string, unknown>) => void },
  ): ServedRecords {
    const { log } = options;
    const files = new Map<string, RecordFile>();
    const seriesFiles = new Map<string, { file: SeriesFile; resource: Resource }>();
    for (const dataset of datasets) {
      for (const table of Object.values(dataset.tables)) {
        for (const series of options.series ? keptSeries(dataset, table) : []) {
          const file = recordFile(recordsDir(databasePath), viewName(dataset, table.name), series.name);
          try {
            seriesFiles.set(`${dataset.name}/${series.name}`, { file: SeriesFile.open(file), resource: series.resource });
          } catch (error) {
            log?.({ event: 'series-file-unreadable', snapshot: snapshot.id, file, error: (error as Error).message });
          }
        }
        if (!isStored(dataset, table)) continue;
        for (const { resource } of recordedResources(dataset, table)) {
          const file = recordFile(recordsDir(databasePath), viewName(dataset, table.name), resource.name);
          try {
            files.set(`${dataset.name}/${resource.name}`, RecordFile.open(file));
          } catch (error) {
            log?.({ event: 'record-file-unreadable', snapshot: snapshot.id, file, error: (error as Error).message });
          }
        }
      }
    }
    return new ServedRecords(files, seriesFiles, new LinkBase(Buffer.from(token)));
  }

  /** A resource's rows kept rendered, if they are: its record file, and how the links' base goes into its texts. */
  rendered(dataset: Dataset, resource: Resource): RenderedResource | undefined {
    return this.renderedOf.get(`${dataset.name}/${resource.name}`);
  }

  /** A resource's rows kept rendered as series named by `columns`, if they are. */
  series(dataset: Dataset, resource: Resource, columns: readonly string[]): RenderedSeries | undefined {
    return this.seriesOf.get(`${dataset.name}/${resource.name}@${columns.join('+')}`);
  }

  close(): void {
    for (const file of this.files.values()) file.close();
    for (const { file } of this.seriesFiles.values()) file.close();
  }
}
