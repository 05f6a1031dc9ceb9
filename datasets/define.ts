import { z } from 'zod';
import { answerProblems, crawlProblems, kindOf, type Answer, type CrawlPlan } from './answers/index.ts';
import { apiPrefix, type ChangesFeed, type Dataset, type DataTheme, type Keywords, type Resource, type TableSpecs } from './vocabulary/dataset.ts';
import { pathParamsOf, type Endpoint, type EndpointSpec as EndpointDeclaration } from './vocabulary/endpoint.ts';
import type { Chart, MapLayer } from './vocabulary/figure.ts';
import { RESERVED_FEED_NAMES, type Feed } from './vocabulary/feed.ts';
import { version } from './vocabulary/param.ts';
import { mergePatch, resolveLinks, type RenderContext } from './vocabulary/render.ts';
import type { ResourceSpec } from './vocabulary/resource.ts';
import type { SampleGenerator, SampleLive } from './vocabulary/sample.ts';
import { recordColumns } from './vocabulary/table.ts';
import { asWritten } from './vocabulary/written.ts';
import type { Columns, RowOf, Table, TableSpec } from '../core/table.ts';
import type { Text } from '../core/text.ts';
import { CSV_DOWNLOADS, DOWNLOADS } from '../core/published-tree.ts';

/**
 * How a data set is declared, and made whole: the one place that knows both the vocabulary
 * (tables, resources, parameters) and the kinds of answer, so that neither imports the other.
 * A data set's folder declares itself with defineDataset; the engines get the Dataset it returns.
 */

/** An endpoint as a data set declares it, its answer one of the kinds' declarations. */
export type EndpointSpec = EndpointDeclaration<Answer>;

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
  /** Its live tables at any minute, for a sample city whose time moves (see SampleLive). */
  readonly liveSample?: SampleLive<T>;
  /** What the data set's page draws (see figure.ts). */
  readonly charts?: readonly Chart[];
  readonly map?: readonly MapLayer[];
  /** An Atom feed of what each pull adds to or revises in one of the data set's tables. */
  readonly feed?: ChangesFeed;
  /** Documents in other formats made from its tables (a GBFS feed), served and written into the tree. */
  readonly feeds?: readonly Feed[];
}

/** Completes a data set's declaration: table names, the `extra` and `upstream_json` columns, full endpoint paths. */
export function defineDataset<T extends TableSpecs>(spec: DatasetSpec<T>): Dataset {
  if (!/^[a-z][a-z0-9-]*$/.test(spec.name)) throw new Error(`data set name "${spec.name}" must be lower-case kebab-case`);
  if (`${DOWNLOADS}/${spec.name}` === CSV_DOWNLOADS)
    throw new Error(`data set name "${spec.name}" is taken: the downloads keep their CSV files under ${CSV_DOWNLOADS}/`);
  const prefix = apiPrefix(spec.name);
  // In name order: tables are declared as a module's exports (`import * as tables`), listed in name
  // order by Node but in declaration order under Vite's transform (the tests); the downloads'
  // catalogue and everything else that lists tables must come out the same under both.
  const tables = Object.fromEntries(
    Object.entries(spec.tables)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, table]) => [name, { ...table, name, columns: { ...table.columns, ...recordColumns } } as Table]),
  );
  for (const table of Object.values(tables)) {
    const named = (table.partitionBy ?? []).find((partition) => partition.name in table.columns);
    const apart = named && (named.name.endsWith('_id') ? named.name.slice(0, -3) : `${named.name}_part`);
    if (named)
      throw new Error(
        `${spec.name}/${table.name}: partition "${named.name}" is named like a column, so a reader of the table's folder would see two columns by that name; name it apart, e.g. "${apart}"`,
      );
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
  if (spec.feed && !tables[spec.feed.table]?.key)
    throw new Error(`${spec.name}: its feed names table "${spec.feed.table}", which it does not declare with a key`);
  const feedMistakes = (spec.feeds ?? []).flatMap(feedProblems);
  if (feedMistakes.length) throw new Error(`${spec.name}: ${feedMistakes.join('; ')}`);
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
    ...(spec.liveSample ? { liveSample: spec.liveSample as unknown as SampleLive<TableSpecs> } : {}),
    charts: spec.charts ?? [],
    map: spec.map ?? [],
    ...(spec.feed ? { feed: spec.feed } : {}),
    feeds: spec.feeds ?? [],
  };
}

/** What is wrong with a feed's declaration: a name that is no path segment or is taken, a file name twice. */
function feedProblems(feed: Feed): string[] {
  const files = feed.documents.map((document) => document.file);
  return [
    ...(/^[a-z][a-z0-9-]*$/.test(feed.name) ? [] : [`feed name "${feed.name}" must be lower-case kebab-case`]),
    ...(RESERVED_FEED_NAMES.includes(feed.name) ? [`feed name "${feed.name}" is taken by the server or the tree`] : []),
    ...files.filter((file) => !/^[a-z0-9_-]+\.json$/.test(file)).map((file) => `feed ${feed.name}: "${file}" must be a file name ending in .json`),
    ...files.filter((file, i) => files.indexOf(file) !== i).map((file) => `feed ${feed.name}: ${file} is declared twice`),
  ];
}

/**
 * The endpoint with every parameter: its path ones, then those its answer's kind adds (limit and
 * offset, from and to, …), then its other query ones, then `version`.
 */
export function completeEndpoint(prefix: string, spec: EndpointSpec): Endpoint {
  const pathParams = pathParamsOf(spec.path);
  const declared = spec.params ?? {};
  for (const name of pathParams) {
    if (!(name in declared)) throw new Error(`${prefix}${spec.path}: path parameter {${name}} is not declared`);
  }
  const added = kindOf(spec.answer).params?.(spec.answer) ?? { params: {} };
  const twice = Object.keys(added.params).find((name) => name in declared);
  if (twice) throw new Error(`${prefix}${spec.path}: parameter ${twice} is added by its answer (${spec.answer.kind}); do not declare it`);
  const params = {
    ...Object.fromEntries(pathParams.map((name) => [name, declared[name]!])),
    ...added.params,
    ...Object.fromEntries(Object.entries(declared).filter(([name]) => !pathParams.includes(name))),
    version,
  };
  const rules = [...(added.rules ?? []), ...(spec.rules ?? [])];
  // Rules read parameters as parsed: over a value that did not parse (from=yesterday) they would
  // only blame its partner for it.
  const schema = z.object(params).superRefine(
    (values, context) => {
      for (const rule of rules) {
        const message = rule.check(values);
        if (message) context.addIssue({ code: 'custom', path: [rule.param], message });
      }
    },
    { when: (payload) => payload.issues.length === 0 },
  );
  return { ...spec, fullPath: `${prefix}${spec.path}`, params, pathParams, parse: (raw) => schema.safeParse(raw) };
}
