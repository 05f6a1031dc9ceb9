import { CSV_INSTANT_FORMAT } from '../../../core/db/csv.ts';
import type { Column } from '../../../core/table.ts';
import { viewName } from '../../../core/table.ts';
import type { Snapshot } from '../../../core/snapshot/read.ts';
import { partitionLabel, type DownloadFile, type TableDownloads } from './files.ts';
import { tableKey, type StatisticsOfTables } from './table-statistics.ts';

/**
 * The downloads as a Frictionless Data Package, `datapackage.json` at the tree's root: one
 * resource per file, its Table Schema from the table's declaration. CSV files are tabular data
 * resources that Frictionless tools validate and read; Parquet files are plain data resources,
 * since Frictionless reads a resource's list of paths as parts of one file to be joined end to
 * end, which Parquet files cannot be.
 *
 * The table's column statistics fit the Table Schema in one place only: a field's `example` ("an
 * example value for the field") is its commonest value, or its least. The rest (nulls, distinct
 * values, histograms) has no property in the Data Package or Table Schema specifications, and
 * `constraints` are rules a value must keep, not what the values happen to be. Each resource
 * links the table's statistics file instead, by a property of odsnap's own, `columnStatistics`,
 * a path relative to this descriptor like `path`: the specifications let descriptors carry
 * properties of their own, and readers that do not know it pass it by.
 */

const parquetMediaType = 'application/vnd.apache.parquet';

/** A partition file's own name among a table's: its partition values, e.g. `year-2024`. */
const partitionName = (partition: Readonly<Record<string, unknown>>) =>
  Object.entries(partition)
    .map(([name, value]) => `${name}-${String(value)}`.toLowerCase().replace(/[^a-z0-9._-]+/g, '-'))
    .join('-');

/** Frictionless Table Schema type of a column. */
function tableSchemaType(column: Column): string {
  switch (column.kind) {
    case 'integer':
      return 'integer';
    case 'double':
    case 'decimal':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'day':
      return 'date';
    case 'instant':
      return 'datetime';
    case 'list':
    case 'struct-list':
      return 'array';
    case 'json':
      return 'any';
    default:
      return 'string';
  }
}

export function dataPackageOf(snapshot: Snapshot, tables: readonly TableDownloads[], home: string | undefined, statistics: StatisticsOfTables) {
  const { manifest } = snapshot;
  const licenses = [{ name: manifest.licence.id, path: manifest.licence.url, title: manifest.licence.name }];
  const resources = tables.flatMap(({ dataset, table, entry, files, statistics: statisticsFile }) => {
    const described = new Map(statistics.get(tableKey(dataset.name, table.name))?.columns.map((c) => [c.name, c]));
    const fields = Object.entries(table.columns).map(([name, column]) => {
      const found = described.get(name);
      const example = found?.top?.[0]?.value ?? found?.min;
      return {
        name,
        type: tableSchemaType(column),
        description: column.doc.en,
        ...(example ? { example } : {}),
        constraints: { required: !column.nullable },
        column,
      };
    });
    const schemaOf = (csv: boolean) => ({
      // As CSV writes instants (see core/db/csv.ts); Parquet stores them typed.
      fields: fields.map(({ column, ...field }) => (csv && column.kind === 'instant' ? { ...field, format: CSV_INSTANT_FORMAT } : field)),
      ...(entry.key ? { primaryKey: entry.key } : {}),
    });
    const named = viewName(dataset, table.name).replaceAll('_', '-');
    const about = (file: DownloadFile) => {
      const part = partitionName(file.partition);
      return {
        name: part ? `${named}-${part}` : named,
        title: `${dataset.title.en}: ${table.name}${part ? ` (${partitionLabel(file.partition)})` : ''}`,
        description: table.doc.en,
      };
    };
    return files.flatMap((file) => {
      const { name, title, description } = about(file);
      return [
        // Paths relative to this descriptor, which sits at the tree's root.
        {
          name,
          title,
          description,
          path: file.path,
          format: 'parquet',
          mediatype: parquetMediaType,
          bytes: file.bytes,
          hash: `sha256:${file.sha256}`,
          schema: schemaOf(false),
          columnStatistics: statisticsFile.path,
          licenses,
        },
        {
          profile: 'tabular-data-resource',
          name: `${name}-csv`,
          title: `${title}, CSV`,
          description,
          path: file.csv.path,
          format: 'csv',
          mediatype: 'text/csv',
          encoding: 'utf-8',
          compression: 'gz',
          bytes: file.csv.bytes,
          hash: `sha256:${file.csv.sha256}`,
          dialect: { delimiter: ',', doubleQuote: true, header: true },
          schema: schemaOf(true),
          columnStatistics: statisticsFile.path,
          licenses,
        },
      ];
    });
  });
  return {
    profile: 'data-package',
    name: `odsnap-${manifest.id.toLowerCase()}`,
    title: `odsnap snapshot ${manifest.id}`,
    description: manifest.licence.attribution,
    version: manifest.id,
    created: manifest.createdAt,
    ...(home ? { homepage: home } : {}),
    licenses,
    sources: [
      {
        title: manifest.source.kind === 'pull' ? manifest.source.upstream : 'odsnap sample city',
        ...(manifest.source.kind === 'pull' ? { path: manifest.source.upstream } : {}),
      },
    ],
    resources,
  };
}
