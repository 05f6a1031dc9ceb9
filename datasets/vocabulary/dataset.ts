import type { z } from 'zod';
import type { Chart, MapLayer } from './figure.ts';
import type { Endpoint } from './endpoint.ts';
import type { Feed } from './feed.ts';
import type { ParseContext } from './parse.ts';
import type { RenderContext } from './render.ts';
import type { SampleGenerator, SampleLive } from './sample.ts';
import type { StoredDataset, Table, TableSpec } from '../../core/table.ts';
import type { Language, Text } from '../../core/text.ts';

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
export type TableSpecs = Readonly<Record<string, TableSpec<any>>>;

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

/** What every step of a crawl plan carries: the endpoint it crawls, relative to the data set's prefix. */
export interface CrawlStepDeclaration {
  readonly path: string;
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
  /** How pull fetches it: steps, each naming an endpoint, whose kinds say what else they take (see datasets/answers/). */
  readonly crawl: readonly CrawlStepDeclaration[];
  readonly sample: SampleGenerator<TableSpecs>;
  /** Its live tables at any minute of the sample city (see SampleLive), where it has any. */
  readonly liveSample?: SampleLive<TableSpecs>;
  readonly charts: readonly Chart[];
  readonly map: readonly MapLayer[];
  readonly feed?: ChangesFeed;
  /** Documents in other formats made from its tables (see feed.ts); none for most. */
  readonly feeds: readonly Feed[];
}

/** Where a data set's endpoints live: `/api/public/<name>`. */
export const apiPrefix = (name: string) => `/api/public/${name}`;
