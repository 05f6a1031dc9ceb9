import type { z } from 'zod';
import { answerProblems, crawlProblems, type CrawlPlan } from '../answers/index.ts';
import type { Chart, MapLayer } from './figure.ts';
import { completeEndpoint, type Endpoint, type EndpointSpec } from './endpoint.ts';
import type { ParseContext } from './parse.ts';
import { mergePatch, resolveLinks, type RenderContext } from './render.ts';
import type { ResourceSpec } from './resource.ts';
import type { SampleGenerator } from './sample.ts';
import { recordColumns } from './table.ts';
import { asWritten } from './written.ts';
import type { Columns, RowOf, StoredDataset, Table, TableSpec } from '../../core/table.ts';
import type { Language, Text } from '../../core/text.ts';
import { CSV_DOWNLOADS, DOWNLOADS } from '../../core/published-tree.ts';

/**
 * The EU's data themes, under which DCAT-AP catalogues (data.europa.eu, dane.gov.pl) file data
 * sets: http://publications.europa.eu/resource/authority/data-theme/<code>.
 */
export const dataThemes = {
  AGRI: 'Agriculture, fisheries, forestry and food',
  ECON: 'Economy and finance',
  EDUC: 'Education, culture and sport',
  ENER: 'Energy',
  ENVI: 'Environment',
  GOVE: 'Government and public sector',
  HEAL: 'Health',
  INTR: 'International issues',
  JUST: 'Justice, legal system and public safety',
  REGI: 'Regions and cities',
  SOCI: 'Population and society',
  TECH: 'Science and technology',
  TRAN: 'Transport',
} as const;
export type DataTheme = keyof typeof dataThemes;

/** Words a catalogue finds the data set by, in each interface language. */
export type Keywords = Readonly<Record<Language, readonly string[]>>;

// Each table has its own columns; `any` lets one record hold them all.
type TableSpecs = Readonly<Record<string, TableSpec<any>>>;

export interface DatasetSpec<T extends TableSpecs> {
  /** The path segment under /api/public, e.g. `bike-counter`. */
  readonly name: string;
  /**
   * The module that declares the data set, `import.meta.url`: work done in a process of its own
   * (the server's database for a snapshot) loads the same definition from there.
   */
  readonly module: string;
  readonly title: Text;
  readonly description: Text;
  /** How catalogues find and file the data set (DCAT-AP keywords and EU data themes). */
  readonly keywords: Keywords;
  readonly themes: readonly DataTheme[];
  readonly tables: T;
  readonly resources: Readonly<Record<string, ResourceSpec<any, any>>>;
  readonly endpoints: readonly EndpointSpec[];
  /** How pull fetches the data set from an upstream. */
  readonly crawl: CrawlPlan;
  readonly sample: SampleGenerator<T>;
  /** What the data set's page draws (see figure.ts). */
  readonly charts?: readonly Chart[];
  readonly map?: readonly MapLayer[];
  /** An Atom feed of what each pull adds to or revises in one of the data set's tables. */
  readonly feed?: ChangesFeed;
}

/**
 * An Atom feed (`/api/public/<name>/changes.atom`) of the records each pull adds to or revises in
 * `table`, one entry per record and pull, linked to the record (see scripts/static/changes.ts).
 */
export interface ChangesFeed {
  /** A table of the data set, with a key. */
  readonly table: string;
  readonly title: Text;
  /** What one record is called, for entry titles: `transaction`. */
  readonly record: Text;
}

export interface Resource {
  readonly name: string;
  readonly table: string;
  readonly schema: z.ZodType;
  /** Columns the rendering never reads. */
  readonly omits: readonly string[];
  /**
   * Renders one row: as its upstream wrote it (`upstream_json`, a WrittenJson) where it was kept,
   * else from its columns, restoring what the upstream sent beyond the spec (`extra`).
   */
  readonly render: (row: Record<string, unknown>, context: RenderContext) => unknown;
  /** The row for an upstream record, without `extra`; absent for resources never stored from one. */
  readonly parse?: (record: unknown, context: ParseContext) => Record<string, unknown>;
}

export interface Dataset extends StoredDataset {
  readonly name: string;
  /** See DatasetSpec.module. */
  readonly module: string;
  readonly title: Text;
  readonly description: Text;
  readonly keywords: Keywords;
  readonly themes: readonly DataTheme[];
  /** `/api/public/<name>` */
  readonly prefix: string;
  /** `<name>` with `_` for `-`: the prefix of the data set's SQL views, e.g. `bike_counter_readings`. */
  readonly sqlName: string;
  readonly tables: Readonly<Record<string, Table>>;
  readonly resources: Readonly<Record<string, Resource>>;
  readonly endpoints: readonly Endpoint[];
  readonly crawl: CrawlPlan;
  readonly sample: SampleGenerator<TableSpecs>;
  readonly charts: readonly Chart[];
  readonly map: readonly MapLayer[];
  readonly feed?: ChangesFeed;
}


/** Where a data set's endpoints live: `/api/public/<name>`. */
export const apiPrefix = (name: string) => `/api/public/${name}`;

/** Completes a data set's declaration: table names, the `extra` and `upstream_json` columns, full endpoint paths. */
export function defineDataset<T extends TableSpecs>(spec: DatasetSpec<T>): Dataset {
  if (!/^[a-z][a-z0-9-]*$/.test(spec.name)) throw new Error(`data set name "${spec.name}" must be lower-case kebab-case`);
  if (`${DOWNLOADS}/${spec.name}` === CSV_DOWNLOADS) throw new Error(`data set name "${spec.name}" is taken: the downloads keep their CSV files under ${CSV_DOWNLOADS}/`);
  const prefix = apiPrefix(spec.name);
  // In name order: tables are declared as a module's exports (`import * as tables`), listed in name
  // order by Node but in declaration order under Vite's transform (the tests); the downloads'
  // catalogue and everything else that lists tables must come out the same under both.
  const tables = Object.fromEntries(
    Object.entries(spec.tables).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, table]) => [
      name,
      { ...table, name, columns: { ...table.columns, ...recordColumns } } as Table,
    ]),
  );
  for (const table of Object.values(tables)) {
    const named = (table.partitionBy ?? []).find((partition) => partition.name in table.columns);
    const apart = named && (named.name.endsWith('_id') ? named.name.slice(0, -3) : `${named.name}_part`);
    if (named) throw new Error(`${spec.name}/${table.name}: partition "${named.name}" is named like a column, so a reader of the table's folder would see two columns by that name; name it apart, e.g. "${apart}"`);
  }
  const tableNameOf = (table: TableSpec<Columns>) => {
    const entry = Object.entries(spec.tables).find(([, candidate]) => candidate === table);
    if (!entry) throw new Error(`${spec.name}: a resource is stored in a table the data set does not declare`);
    return entry[0];
  };
  const resources = Object.fromEntries(
    Object.entries(spec.resources).map(([name, resource]) => {
      // The resource stored in the same table (its upstream_json is that one's text): a list form
      // of it leaves out the fields the stored form has beyond its own.
      const stored = Object.values(spec.resources).find((other) => other.table === resource.table && other.parse);
      const written = asWritten(resource.schema, stored?.schema ?? resource.schema);
      return [
        name,
        {
          name,
          table: tableNameOf(resource.table),
          schema: resource.schema,
          omits: resource.omits ?? [],
          parse: resource.parse as Resource['parse'],
          render: (row: Record<string, unknown>, context: RenderContext) => {
            if (typeof row.upstream_json === 'string') return written(row.upstream_json, context);
            const rendered = resource.render(row as RowOf<Columns>, context);
            return row.extra == null ? rendered : mergePatch(rendered, resolveLinks(row.extra, context));
          },
        } satisfies Resource,
      ];
    }),
  );
  const endpoints = spec.endpoints.map((endpoint) => completeEndpoint(prefix, endpoint));
  for (const endpoint of endpoints) {
    const problems = answerProblems(endpoint, { resources, tables });
    if (problems.length) throw new Error(`${endpoint.fullPath}: its answer ${problems.join('; ')}`);
  }
  const columnsOf = (resource: string) => {
    const table = resources[resource] && tables[resources[resource].table];
    return table && Object.keys(table.columns);
  };
  const crawlMistakes = crawlProblems(spec.crawl, { endpoints, resources, columnsOf });
  if (crawlMistakes.length) throw new Error(`${spec.name}: its crawl plan ${crawlMistakes.join('; ')}`);
  const paths = endpoints.map((e) => e.fullPath);
  const repeated = paths.find((path, i) => paths.indexOf(path) !== i);
  if (repeated) throw new Error(`${spec.name}: endpoint ${repeated} is declared twice`);
  if (spec.feed && !tables[spec.feed.table]?.key) throw new Error(`${spec.name}: its feed names table "${spec.feed.table}", which it does not declare with a key`);
  return {
    name: spec.name,
    module: spec.module,
    title: spec.title,
    description: spec.description,
    keywords: spec.keywords,
    themes: spec.themes,
    prefix,
    sqlName: spec.name.replaceAll('-', '_'),
    tables,
    resources,
    endpoints,
    crawl: spec.crawl,
    sample: spec.sample as unknown as SampleGenerator<TableSpecs>,
    charts: spec.charts ?? [],
    map: spec.map ?? [],
    ...(spec.feed ? { feed: spec.feed } : {}),
  };
}
