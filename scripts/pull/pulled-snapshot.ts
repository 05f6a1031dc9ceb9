import { appendFileSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Dataset } from '../../datasets/vocabulary/dataset.ts';
import type { SampleSettings } from '../../datasets/vocabulary/sample.ts';
import type { Table } from '../../core/table.ts';
import { quoteIdentifier, quoteString } from '../../core/db/duckdb.ts';
import type { FileManifest, QuarantineManifest } from '../../core/snapshot/manifest.ts';
import { sha256Of } from '../../core/snapshot/table-writer.ts';
import type { TableWriter } from '../../core/snapshot/table-writer.ts';
import { writeSnapshot, type WrittenSnapshot } from '../../core/snapshot/write.ts';
import type { TablePlan } from '../../datasets/answers/crawling.ts';
import type { EndpointObservations } from './crawl/observations.ts';
import type { Journal } from './journal.ts';
import type { Batch } from './journal-line.ts';
import { QUARANTINE_FLOOR, sizeText, type PullLimits } from './limits.ts';
import { Dedupe, Normalizer } from './normalize.ts';
import type { Previous } from './previous.ts';
import { endpointsLearned } from './learned.ts';
import { RangeRules } from './range-rules.ts';
import type { Escapes } from '../../datasets/vocabulary/written.ts';

/**
 * Turns a finished crawl into a snapshot: the rows of every record the journal holds (normalized:
 * validated, parsed, deduplicated within each unit), plus what each table's plan
 * takes from the previous snapshot — details unchanged since, readings before where this pull
 * started again, whole partitions nothing touched (hard-linked, not rewritten), and the tables
 * of data sets not pulled this time. Quarantined records go to `quarantine/<data set>.ndjson`,
 * and so do rows holding a value past `maxValueBytes`, which the server could not load. A table
 * with more of its records quarantined than `maxQuarantined` allows fails the build: nothing is
 * published.
 */

export interface PulledSnapshotOptions {
  readonly dataDir: string;
  /** Every data set of the snapshot, pulled this time or not. */
  readonly datasets: readonly Dataset[];
  /** Plans of the tables of the data sets pulled this time, by data set and table. */
  readonly plans: ReadonlyMap<string, ReadonlyMap<string, TablePlan>>;
  readonly journal: Journal;
  readonly previous: Previous | undefined;
  readonly upstream: string;
  /** The address the upstream writes its links on, when not the one pulled from (see public-base.ts). */
  readonly publicBase?: string;
  /** The escapes the upstream's answers always wrote (see escapesOf). */
  readonly escapes?: Escapes;
  /** What the endpoints' answers showed beyond their records (see Observed), by endpoint, links as the upstream wrote them. */
  readonly endpoints: Readonly<Record<string, EndpointObservations>>;
  readonly sample?: SampleSettings;
  readonly createdAt: number;
  readonly limits: Pick<PullLimits, 'maxValueBytes' | 'maxQuarantined'>;
  /** Checks the snapshot before it becomes current (see WriteSnapshotOptions.beforeCurrent). */
  readonly servable?: (snapshot: WrittenSnapshot) => Promise<void>;
  readonly log: (line: string) => void;
}

export interface Built {
  readonly snapshot: WrittenSnapshot;
  /** Records that failed validation, by data set. */
  readonly quarantined: Record<string, number>;
  /** Rows taken from the previous snapshot, by `<data set>/<table>`, and files linked as they were. */
  readonly carriedRows: Record<string, number>;
  readonly linkedFiles: number;
}

export async function writePulledSnapshot(options: PulledSnapshotOptions): Promise<Built> {
  const { previous } = options;
  const carriedRows: Record<string, number> = {};
  const quarantined: Record<string, number> = {};
  let linkedFiles = 0;
  const normalizers = new Map(options.datasets.map((d) => [d.name, new Normalizer(d, { pulledFrom: options.upstream, publicBase: options.publicBase })]));
  const ranges = new RangeRules();
  /** Records each table got in this pull, stored or quarantined, by `<data set>/<table>`, with a reason one was quarantined for. */
  const got = new Map<string, { stored: number; quarantined: number; reason?: string }>();
  const count = (table: string, reason?: string) => {
    const entry = got.get(table) ?? { stored: 0, quarantined: 0 };
    if (reason === undefined) entry.stored++;
    else if (entry.quarantined++ === 0) entry.reason = reason;
    got.set(table, entry);
  };
  const { maxValueBytes } = options.limits;
  const snapshot = await writeSnapshot(
    {
      dataDir: options.dataDir,
      datasets: options.datasets,
      source: {
        kind: 'pull',
        upstream: options.upstream,
        ...(options.publicBase && options.publicBase !== options.upstream ? { publicBase: options.publicBase } : {}),
        ...(options.escapes && Object.keys(options.escapes).length ? { escapes: options.escapes } : {}),
        ...(options.sample ? { sample: options.sample } : {}),
      },
      createdAt: options.createdAt,
      log: options.log,
      previous: previous?.snapshot,
      recordChanges: true,
      beforeCurrent: options.servable,
    },
    async (writers, snapshotDir) => {
      let entries = 0;
      /**
       * Rows of the previous snapshot that span the first instant this pull asks again (a ride
       * started before it, finished after): an upstream returning rows by overlap sends them again.
       */
      const seeded = new Set<string>();
      const edgesOfPrevious = async (window: NonNullable<Batch['window']>, datasetName: string) => {
        const dataset = options.datasets.find((d) => d.name === datasetName)!;
        const table = Object.values(dataset.tables).find((t) => window.time in t.columns && (window.until === undefined || window.until in t.columns));
        const plan = table && options.plans.get(datasetName)?.get(table.name);
        const key = `${datasetName}/${table?.name}`;
        if (!table || !previous || !window.until || plan?.kind !== 'append' || seeded.has(key)) return;
        seeded.add(key);
        for (const cutoff of new Set(plan.cutoffs.values())) {
          const where = `epoch_ms(${quoteIdentifier(window.time)}) < ${cutoff} AND epoch_ms(${quoteIdentifier(window.until)}) >= ${cutoff}`;
          for await (const rows of previous.rows(dataset, table.name, undefined, where)) for (const row of rows) ranges.seen(table, row);
        }
      };
      for await (const entry of options.journal.entries()) {
        const normalizer = entry.dataset && normalizers.get(entry.dataset);
        if (!normalizer) continue;
        const writerOf = writers[entry.dataset!]!;
        const dedupes = new Map<string, Dedupe>();
        const rejected: string[] = [];
        const dataset = options.datasets.find((d) => d.name === entry.dataset)!;
        // No value can be larger than the line it came in.
        const measure = entry.bytes > maxValueBytes;
        for (const batch of entry.batches ?? []) {
          if (batch.window) await edgesOfPrevious(batch.window, entry.dataset!);
          normalizer.batch(batch, entry.answers?.[batch.answer], entry.texts?.[batch.answer], (result) => {
            if (!result.ok) {
              count(`${dataset.name}/${dataset.resources[result.quarantined.resource]?.table}`, result.quarantined.reason);
              return void rejected.push(JSON.stringify(result.quarantined) + '\n');
            }
            const large = measure ? oversized(result.row, maxValueBytes) : undefined;
            if (large) {
              const reason = `its ${large.column} is ${sizeText(large.bytes)}, more than the ${sizeText(maxValueBytes)} a value may hold (--max-value)`;
              count(`${dataset.name}/${result.table.name}`, reason);
              return void rejected.push(JSON.stringify({ resource: batch.resource, url: batch.url, reason, record: cut(result.row, maxValueBytes) }) + '\n');
            }
            count(`${dataset.name}/${result.table.name}`);
            if (batch.window && !ranges.keep(batch.window, batch.params, result.table, result.row)) return;
            let dedupe = dedupes.get(result.table.name);
            if (!dedupe) dedupes.set(result.table.name, (dedupe = new Dedupe(result.table)));
            if (dedupe.keep(result.row))
              writerOf[result.table.name]!.write(placed(options.plans.get(entry.dataset!)?.get(result.table.name), result.table, result.row));
          });
        }
        if (rejected.length) {
          mkdirSync(join(snapshotDir, 'quarantine'), { recursive: true });
          appendFileSync(join(snapshotDir, quarantinePath(entry.dataset!)), rejected.join(''));
          quarantined[entry.dataset!] = (quarantined[entry.dataset!] ?? 0) + rejected.length;
        }
        if (++entries % 2000 === 0) options.log(`normalized ${entries.toLocaleString('en')} of ${options.journal.units.toLocaleString('en')} units`);
      }
      const gutted = [...got].flatMap(([table, { stored, quarantined, reason }]) => {
        const share = quarantined / (stored + quarantined);
        if (quarantined === 0 || (stored > 0 && (quarantined <= QUARANTINE_FLOOR || share <= options.limits.maxQuarantined))) return [];
        return [
          `${table}: ${quarantined} of ${stored + quarantined} records quarantined (${percent(share)}), more than --max-quarantine ${percent(options.limits.maxQuarantined)} allows; the first because ${reason}`,
        ];
      });
      if (gutted.length) throw new Error(`${gutted.join('; ')}. The snapshot was not published`);

      if (previous) {
        for (const dataset of options.datasets) {
          for (const table of Object.values(dataset.tables)) {
            if (!previous.has(dataset.name, table.name)) continue;
            const plan = options.plans.get(dataset.name)?.get(table.name);
            const writer = writers[dataset.name]![table.name]!;
            const before = writer.rows;
            linkedFiles += await carry(previous, dataset, table, plan, writer);
            if (writer.rows > before) carriedRows[`${dataset.name}/${table.name}`] = writer.rows - before;
          }
        }
      }

      const quarantine: Record<string, QuarantineManifest> = {};
      for (const [name, records] of Object.entries(quarantined)) {
        const path = quarantinePath(name);
        const file = join(snapshotDir, path);
        quarantine[name] = { records, path, bytes: statSync(file).size, sha256: await sha256Of(file) };
      }
      const unread = Object.fromEntries([...normalizers].filter(([, n]) => n.unread.size).map(([name, n]) => [name, Object.fromEntries(n.unread)]));
      for (const [path, { range }] of Object.entries(options.endpoints)) if (range) ranges.asked(path, range);
      const endpoints = endpointsLearned(options, normalizers, ranges.rules());
      return {
        ...(Object.keys(quarantine).length ? { quarantine } : {}),
        ...(Object.keys(unread).length ? { unread } : {}),
        ...(Object.keys(endpoints).length ? { endpoints } : {}),
      };
    },
  );
  return { snapshot, quarantined, carriedRows, linkedFiles };
}

const quarantinePath = (dataset: string) => `quarantine/${dataset}.ndjson`;

const percent = (share: number) => `${Number((share * 100).toFixed(share < 0.1 ? 2 : 1))}%`;

/** Bytes of a value as stored: a string's UTF-8, any other value's JSON text. */
function bytesOf(value: unknown, max: number): number {
  if (typeof value === 'string') return value.length * 3 <= max ? value.length : Buffer.byteLength(value);
  if (value === null || typeof value !== 'object') return 0;
  return Buffer.byteLength(JSON.stringify(value));
}

/** The first value of a row larger than `max` bytes, with its column and size. */
function oversized(row: Record<string, unknown>, max: number): { column: string; bytes: number } | undefined {
  for (const [column, value] of Object.entries(row)) {
    const bytes = bytesOf(value, max);
    if (bytes > max) return { column, bytes };
  }
  return undefined;
}

/** The row as quarantined: each value too large cut to its start, so the quarantine does not hold it either. */
const cut = (row: Record<string, unknown>, max: number) =>
  Object.fromEntries(
    Object.entries(row).map(([column, value]) => {
      const bytes = bytesOf(value, max);
      if (bytes <= max) return [column, value];
      const text = typeof value === 'string' ? value : JSON.stringify(value);
      return [column, `${text.slice(0, 200)}… (${sizeText(bytes)}, cut)`];
    }),
  );

/** The row with where its key stood in the upstream's list, when the table's plan says (a list paged by offset). */
function placed(plan: TablePlan | undefined, table: Table, row: Record<string, unknown>): Record<string, unknown> {
  const positions = plan && 'positions' in plan ? plan.positions : undefined;
  if (positions && table.key) row.list_position = positions.get(String(row[table.key[0]!])) ?? null;
  return row;
}

/** Takes into `writer` what the table's plan keeps of the previous snapshot; returns the files linked as they were. */
async function carry(previous: Previous, dataset: Dataset, table: Table, plan: TablePlan | undefined, writer: TableWriter): Promise<number> {
  const files = previous.snapshot.manifest.datasets[dataset.name]!.tables[table.name]!.files.filter((f) => f.rows > 0);
  const path = (file: FileManifest) => join(previous.snapshot.dir, file.path);
  switch (plan?.kind) {
    case 'replace':
      return 0;
    case 'refresh': {
      if (!plan.carry.size) return 0;
      await previous.keyTable('carried_keys', plan.carry);
      const where = `${quoteIdentifier(plan.key)} IN (SELECT key FROM carried_keys)`;
      for await (const rows of previous.rows(dataset, table.name, files.map(path), where)) for (const row of rows) writer.write(placed(plan, table, row));
      return 0;
    }
    case 'append': {
      let linked = 0;
      for (const file of files) {
        const replaced = replacedRows(plan, table, file);
        if (!replaced && !writer.hasPartition(file.partition)) {
          writer.carry(file, path(file));
          linked++;
          continue;
        }
        for await (const rows of previous.rows(dataset, table.name, [path(file)], replaced ? `NOT (${replaced})` : 'true'))
          for (const row of rows) writer.write(row);
      }
      return linked;
    }
    default:
      // Not pulled this time: the table stays as it was.
      for (const file of files) writer.carry(file, path(file));
      return files.length;
  }
}

/**
 * SQL true for the rows of a previous file this pull fetched again (a series' rows from its
 * cutoff on), or undefined when the file holds none of them.
 */
function replacedRows(plan: Extract<TablePlan, { kind: 'append' }>, table: Table, file: FileManifest): string | undefined {
  const conditions: string[] = [];
  // A file partitioned by a series column holds only that series.
  const partitionOf = (column: string) => table.partitionBy?.find((p) => p.column === column && !p.part)?.name;
  const latest = file.max === null ? undefined : Date.parse(file.max);
  for (const [key, cutoff] of plan.cutoffs) {
    if (latest === undefined || latest < cutoff) continue;
    const values = JSON.parse(key) as (string | null)[];
    if (plan.series.some((column, i) => partitionOf(column) !== undefined && file.partition[partitionOf(column)!] !== values[i])) continue;
    const same = plan.series.map((column, i) => `${quoteIdentifier(column)} = ${quoteString(values[i]!)}`);
    conditions.push(`(${[...same, `epoch_ms(${quoteIdentifier(plan.time)}) >= ${cutoff}`].join(' AND ')})`);
  }
  return conditions.length ? conditions.join(' OR ') : undefined;
}
