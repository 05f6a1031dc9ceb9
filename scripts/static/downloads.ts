import { join } from 'node:path';
import type { Column } from '../../core/table.ts';
import { type Dataset } from '../../datasets/vocabulary/dataset.ts';
import { viewName } from '../../core/table.ts';
import type { Snapshot } from '../../core/snapshot/read.ts';
import type { TreeOutput } from './tree-output.ts';
import { CATALOGUE, DATAPACKAGE, DCAT, DOWNLOADS } from '../../core/published-tree.ts';

/**
 * The bulk downloads: every Parquet file of the snapshot under `/downloads/<data set>/<table>/…`
 * (the snapshot's own partition paths, so URLs stay the same from one snapshot to the next),
 * and three descriptions of them: odsnap's catalogue (rows, bytes, sha256, partition values and
 * the time range of each file, so clients can skip files), a Frictionless Data Package and a
 * DCAT-AP record. All carry the snapshot's licence (CC BY 4.0) and attribution.
 */


export interface DownloadsOptions {
  readonly snapshot: Snapshot;
  readonly datasets: readonly Dataset[];
  readonly output: TreeOutput;
  /** Prefix of absolute links ('' for root-relative ones). */
  readonly base: string;
  /** Whether the tree holds the site, whose home page the data package names. */
  readonly site?: boolean;
}

const parquetMediaType = 'application/vnd.apache.parquet';
/** DCAT-AP names media types by their IANA registration. */
const ianaMediaType = (type: string) => ({ '@id': `https://www.iana.org/assignments/media-types/${type}` });

/** Who published the data: the upstream a snapshot was pulled from, or odsnap for its sample city. */
function publisherOf(source: Snapshot['manifest']['source']) {
  if (source.kind === 'pull' && !source.sample) return { '@type': 'foaf:Agent', 'foaf:name': `The v1 service at ${source.upstream}`, 'foaf:homepage': { '@id': source.upstream } };
  return { '@type': 'foaf:Agent', 'foaf:name': 'odsnap (synthetic sample city)' };
}

/** A partition file's values as people read them, e.g. `year=2024, month=09`. */
const partitionLabel = (partition: Record<string, unknown>) => Object.entries(partition).map(([name, value]) => `${name}=${String(value)}`).join(', ');

/** A partition file's own name among a table's: its partition values, e.g. `year-2024`. */
const partitionName = (partition: Record<string, unknown>) =>
  Object.entries(partition).map(([name, value]) => `${name}-${String(value)}`.toLowerCase().replace(/[^a-z0-9._-]+/g, '-')).join('-');

export async function writeDownloads({ snapshot, datasets, output, base, site = false }: DownloadsOptions): Promise<{ files: number; bytes: number }> {
  const { manifest } = snapshot;
  let files = 0;
  let bytes = 0;
  const tables = datasets.flatMap((dataset) =>
    Object.values(dataset.tables).map((table) => {
      const entry = manifest.datasets[dataset.name]!.tables[table.name]!;
      return { dataset, table, entry, files: entry.files.map((file) => ({ ...file, url: `${base}/${DOWNLOADS}/${dataset.name}/${table.name}/${file.path.split('/').slice(2).join('/')}` })) };
    }),
  );
  for (const { entry, files: tableFiles } of tables) {
    for (const [i, file] of tableFiles.entries()) {
      await output.link(file.url.slice(base.length + 1), join(snapshot.dir, entry.files[i]!.path), file.sha256);
      files++;
      bytes += file.bytes;
    }
  }

  const licence = { id: manifest.licence.id, name: manifest.licence.name, url: manifest.licence.url, attribution: manifest.licence.attribution };
  const catalogue = {
    snapshot: { id: manifest.id, createdAt: manifest.createdAt, source: manifest.source },
    licence,
    tables: tables.map(({ dataset, table, entry, files: tableFiles }) => ({
      dataset: dataset.name,
      table: table.name,
      sqlName: viewName(dataset, table.name),
      description: table.doc,
      rows: entry.rows,
      key: entry.key,
      partitionBy: entry.partitionBy,
      sortBy: entry.sortBy,
      timeColumn: entry.timeColumn,
      columns: Object.entries(table.columns).map(([name, column]) => ({ name, type: column.sqlType, nullable: column.nullable, description: column.doc })),
      files: tableFiles.map(({ url, rows, bytes: size, sha256, partition, min, max }) => ({ url, rows, bytes: size, sha256, partition, min, max })),
    })),
  };
  await output.write(CATALOGUE, JSON.stringify(catalogue, null, 2));

  const licenses = [{ name: licence.id, path: licence.url, title: licence.name }];
  // One resource per Parquet file: Frictionless reads a resource's list of paths as parts of one
  // file to be joined end to end, which Parquet files cannot be.
  const datapackage = {
    profile: 'data-package',
    name: `odsnap-${manifest.id.toLowerCase()}`,
    title: `odsnap snapshot ${manifest.id}`,
    description: manifest.licence.attribution,
    version: manifest.id,
    created: manifest.createdAt,
    // A URL of the site's home; a tree without the site, or linked from its root, has none to give.
    ...(site && /^https?:\/\//.test(base) ? { homepage: `${base}/` } : {}),
    licenses,
    sources: [{ title: manifest.source.kind === 'pull' ? manifest.source.upstream : 'odsnap sample city', ...(manifest.source.kind === 'pull' ? { path: manifest.source.upstream } : {}) }],
    resources: tables.flatMap(({ dataset, table, entry, files: tableFiles }) => {
      const schema = {
        fields: Object.entries(table.columns).map(([name, column]) => ({ name, type: tableSchemaType(column), description: column.doc.en, constraints: { required: !column.nullable } })),
        ...(entry.key ? { primaryKey: entry.key } : {}),
      };
      const resourceName = viewName(dataset, table.name).replaceAll('_', '-');
      return tableFiles.map((file) => {
        const part = partitionName(file.partition);
        return {
          name: part ? `${resourceName}-${part}` : resourceName,
          title: `${dataset.title.en}: ${table.name}${part ? ` (${partitionLabel(file.partition)})` : ''}`,
          description: table.doc.en,
          // Relative to this descriptor, which sits at the tree's root.
          path: file.url.slice(base.length + 1),
          format: 'parquet',
          mediatype: parquetMediaType,
          bytes: file.bytes,
          hash: `sha256:${file.sha256}`,
          schema,
          licenses,
        };
      });
    }),
  };
  await output.write(DATAPACKAGE, JSON.stringify(datapackage, null, 2));

  const dcat = {
    '@context': {
      dcat: 'http://www.w3.org/ns/dcat#',
      dct: 'http://purl.org/dc/terms/',
      foaf: 'http://xmlns.com/foaf/0.1/',
      xsd: 'http://www.w3.org/2001/XMLSchema#',
      spdx: 'http://spdx.org/rdf/terms#',
      rdfs: 'http://www.w3.org/2000/01/rdf-schema#',
    },
    '@id': `${base}/${DCAT}`,
    '@type': 'dcat:Catalog',
    'dct:title': [{ '@value': `odsnap snapshot ${manifest.id}`, '@language': 'en' }, { '@value': `Migawka odsnap ${manifest.id}`, '@language': 'pl' }],
    'dct:description': { '@value': manifest.licence.attribution, '@language': 'en' },
    'dct:issued': { '@value': manifest.createdAt, '@type': 'xsd:dateTime' },
    'dct:publisher': publisherOf(manifest.source),
    'dct:license': { '@id': licence.url, '@type': 'dct:LicenseDocument' },
    'dct:rights': { '@type': 'dct:RightsStatement', 'rdfs:label': manifest.licence.attribution },
    'dcat:dataset': datasets.map((dataset) => ({
      '@id': `${base}/${DOWNLOADS}/${dataset.name}`,
      '@type': 'dcat:Dataset',
      'dct:identifier': dataset.name,
      'dct:title': [{ '@value': dataset.title.en, '@language': 'en' }, { '@value': dataset.title.pl, '@language': 'pl' }],
      'dct:description': [{ '@value': dataset.description.en, '@language': 'en' }, { '@value': dataset.description.pl, '@language': 'pl' }],
      'dct:license': { '@id': licence.url },
      'dct:modified': { '@value': manifest.createdAt, '@type': 'xsd:dateTime' },
      'dcat:distribution': [
        {
          '@type': 'dcat:Distribution',
          'dct:title': 'v1 JSON (static)',
          'dcat:accessURL': { '@id': `${base}/api/public/index.json` },
          'dcat:mediaType': ianaMediaType('application/json'),
          'dct:license': { '@id': licence.url },
        },
        ...tables
          .filter((t) => t.dataset === dataset)
          .flatMap(({ table, files: tableFiles }) =>
            tableFiles.map((file) => ({
              '@type': 'dcat:Distribution',
              'dct:title': `${table.name} ${partitionLabel(file.partition)}`.trim(),
              'dcat:downloadURL': { '@id': file.url },
              'dcat:accessURL': { '@id': `${base}/${CATALOGUE}` },
              'dcat:mediaType': ianaMediaType(parquetMediaType),
              'dcat:byteSize': { '@value': String(file.bytes), '@type': 'xsd:nonNegativeInteger' },
              'spdx:checksum': {
                '@type': 'spdx:Checksum',
                'spdx:algorithm': { '@id': 'spdx:checksumAlgorithm_sha256' },
                'spdx:checksumValue': { '@value': file.sha256, '@type': 'xsd:hexBinary' },
              },
              'dct:license': { '@id': licence.url },
            })),
          ),
      ],
    })),
  };
  await output.write(DCAT, JSON.stringify(dcat, null, 2));
  return { files, bytes };
}

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
