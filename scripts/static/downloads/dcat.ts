import type { Snapshot } from '../../../core/snapshot/read.ts';
import { CATALOGUE, DCAT, DOWNLOADS, INDEX, recordsAndLiveCoverage } from '../../../core/published-tree.ts';
import type { Dataset } from '../../../datasets/vocabulary/dataset.ts';
import { partitionLabel, type DownloadFile, type TableDownloads } from './files.ts';

/**
 * The downloads as a DCAT-AP record, `downloads/dcat.jsonld`, for open-data portals to harvest:
 * a catalogue of the data sets, each with its publisher, contact point, keywords, EU data themes
 * and time range, and a distribution per file (Parquet and CSV) and for the static JSON.
 * Harvesters need absolute IRIs: a tree built without an absolute base gets root-relative ones,
 * which resolve only against the address the record is read from (the build warns).
 */

/** Who publishes the data, and whom to ask about it. */
export interface Publisher {
  readonly name: string;
  readonly homepage?: string;
  /** An e-mail address (`mailto:…`) or a web page (`https://…`). */
  readonly contact?: string;
}

/**
 * The upstream a snapshot was pulled from, at the address it publishes on; odsnap for its sample
 * city. `given` (odsnap build --publisher, --contact) names the real organisation.
 */
export function publisherOf(source: Snapshot['manifest']['source'], given: Partial<Publisher> = {}): Publisher {
  const upstream = source.kind === 'pull' && !source.sample ? (source.publicBase ?? source.upstream) : undefined;
  const found: Publisher = upstream
    ? { name: `The v1 service at ${upstream}`, homepage: upstream, contact: upstream }
    : { name: 'odsnap (synthetic sample city)' };
  return { ...found, ...Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined)) };
}

const euVocabulary = (scheme: string, code: string) => ({ '@id': `http://publications.europa.eu/resource/authority/${scheme}/${code}` });
/** DCAT-AP names media types by their IANA registration. */
const ianaMediaType = (type: string) => ({ '@id': `https://www.iana.org/assignments/media-types/${type}` });
const texts = (values: Readonly<Record<string, string>>) => Object.entries(values).map(([language, value]) => ({ '@value': value, '@language': language }));
const dateTime = (value: string) => ({ '@value': value, '@type': 'xsd:dateTime' });

export interface DcatOptions {
  readonly snapshot: Snapshot;
  readonly datasets: readonly Dataset[];
  readonly tables: readonly TableDownloads[];
  /** Prefix of the tree's links: absolute (https://…) for absolute IRIs. */
  readonly base: string;
  readonly publisher: Publisher;
  /** The site's page of a data set, and its home page, when the tree holds the site. */
  readonly pages?: { readonly home: string; readonly dataset: (name: string) => string };
}

export function dcatOf({ snapshot, datasets, tables, base, publisher, pages }: DcatOptions) {
  const { manifest } = snapshot;
  const licence = { '@id': manifest.licence.url };
  const agent = {
    '@type': 'foaf:Agent',
    'foaf:name': publisher.name,
    ...(publisher.homepage ? { 'foaf:homepage': { '@id': publisher.homepage } } : {}),
  };
  const contactPoint = {
    '@type': 'vcard:Organization',
    'vcard:fn': publisher.name,
    ...(publisher.contact?.startsWith('mailto:')
      ? { 'vcard:hasEmail': { '@id': publisher.contact } }
      : publisher.contact
        ? { 'vcard:hasURL': { '@id': publisher.contact } }
        : {}),
  };
  const distribution = (title: string, file: { url: string; bytes: number; sha256: string }, format: { type: string; code: string; compressed?: boolean }) => ({
    '@type': 'dcat:Distribution',
    'dct:title': title,
    'dcat:accessURL': { '@id': `${base}/${CATALOGUE}` },
    'dcat:downloadURL': { '@id': file.url },
    'dcat:mediaType': ianaMediaType(format.type),
    'dct:format': euVocabulary('file-type', format.code),
    ...(format.compressed ? { 'dcat:compressFormat': ianaMediaType('application/gzip') } : {}),
    'dcat:byteSize': { '@value': String(file.bytes), '@type': 'xsd:nonNegativeInteger' },
    'spdx:checksum': {
      '@type': 'spdx:Checksum',
      'spdx:algorithm': { '@id': 'spdx:checksumAlgorithm_sha256' },
      'spdx:checksumValue': { '@value': file.sha256, '@type': 'xsd:hexBinary' },
    },
    'dct:license': licence,
  });
  const fileDistributions = (table: string, file: DownloadFile) => {
    const title = `${table} ${partitionLabel(file.partition)}`.trim();
    return [
      distribution(`${title} (Parquet)`, file, { type: 'application/vnd.apache.parquet', code: 'PARQUET' }),
      distribution(`${title} (CSV, gzip)`, file.csv, { type: 'text/csv', code: 'CSV', compressed: true }),
    ];
  };
  /**
   * The earliest and latest time of a data set's records, from its files' ranges: as on the site,
   * live captures are left out, their times being the pulls' own clock, not dates of the data.
   */
  const period = (dataset: Dataset) => {
    const covered = recordsAndLiveCoverage(
      tables.filter((t) => t.dataset === dataset),
      (t) => t.table.liveCaptures === true,
    ).records;
    return covered ? { 'dct:temporal': { '@type': 'dct:PeriodOfTime', 'dcat:startDate': dateTime(covered.min), 'dcat:endDate': dateTime(covered.max) } } : {};
  };

  return {
    '@context': {
      dcat: 'http://www.w3.org/ns/dcat#',
      dct: 'http://purl.org/dc/terms/',
      foaf: 'http://xmlns.com/foaf/0.1/',
      vcard: 'http://www.w3.org/2006/vcard/ns#',
      xsd: 'http://www.w3.org/2001/XMLSchema#',
      spdx: 'http://spdx.org/rdf/terms#',
      rdfs: 'http://www.w3.org/2000/01/rdf-schema#',
    },
    '@id': `${base}/${DCAT}`,
    '@type': 'dcat:Catalog',
    'dct:title': texts({ en: `odsnap snapshot ${manifest.id}`, pl: `Migawka odsnap ${manifest.id}` }),
    'dct:description': { '@value': manifest.licence.attribution, '@language': 'en' },
    'dct:issued': dateTime(manifest.createdAt),
    'dct:modified': dateTime(manifest.createdAt),
    'dct:publisher': agent,
    'dct:license': { ...licence, '@type': 'dct:LicenseDocument' },
    'dct:rights': { '@type': 'dct:RightsStatement', 'rdfs:label': manifest.licence.attribution },
    ...(pages ? { 'foaf:homepage': { '@id': pages.home } } : {}),
    'dcat:dataset': datasets.map((dataset) => ({
      '@id': `${base}/${DOWNLOADS}/${dataset.name}`,
      '@type': 'dcat:Dataset',
      'dct:identifier': dataset.name,
      'dct:title': texts(dataset.title),
      'dct:description': texts(dataset.description),
      'dct:publisher': agent,
      'dcat:contactPoint': contactPoint,
      'dcat:keyword': Object.entries(dataset.keywords).flatMap(([language, words]) => words.map((word) => ({ '@value': word, '@language': language }))),
      'dcat:theme': dataset.themes.map((theme) => euVocabulary('data-theme', theme)),
      'dct:license': licence,
      'dct:issued': dateTime(manifest.createdAt),
      'dct:modified': dateTime(manifest.createdAt),
      ...period(dataset),
      ...(pages ? { 'dcat:landingPage': { '@id': pages.dataset(dataset.name) } } : {}),
      'dcat:distribution': [
        {
          '@type': 'dcat:Distribution',
          'dct:title': 'v1 JSON (static)',
          'dcat:accessURL': { '@id': `${base}/${INDEX}` },
          'dcat:mediaType': ianaMediaType('application/json'),
          'dct:format': euVocabulary('file-type', 'JSON'),
          'dct:license': licence,
        },
        ...tables.filter((t) => t.dataset === dataset).flatMap(({ table, files }) => files.flatMap((file) => fileDistributions(table.name, file))),
      ],
    })),
  };
}
