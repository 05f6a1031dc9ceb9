import type { DuckDBConnection } from '@duckdb/node-api';
import type { z } from 'zod';
import type { Table } from '../../core/table.ts';
import type { AnswerDeclaration, Endpoint } from '../vocabulary/endpoint.ts';
import type { ParamRule } from '../vocabulary/param.ts';
import type { Crawl, StepScope } from './crawling.ts';
import type { AnswerRequest } from './serving.ts';
import type { Defaults, FileSource, FileUnit, PrintsWanted, StaticFile, TreeLayout } from './static-files.ts';

/**
 * A kind of answer: how an endpoint is answered from the tables (offset pages, numbered pages, a
 * series, an item, …), declared as data in the endpoint (`answer: { kind: 'page', … }`). Each
 * kind is one module (answers/<kind>/) that says everything the engines need of it, so that they
 * loop over kinds as they loop over data sets: what it adds to the endpoint and checks of it, then
 * one facet per engine: how the server answers it, what the static tree holds of it, how a pull
 * crawls it, and how the docs show it. Adding a kind is a module that implements this, and one
 * line in answers/index.ts.
 */

/** The names a declaration may use, to check them (see AnswerKind.problems). */
export interface DeclarationScope {
  /** Every parameter of the endpoint (path, query and the kind's own). */
  readonly params: readonly string[];
  readonly pathParams: readonly string[];
  readonly resources: Readonly<Record<string, { readonly table: string }>>;
  readonly tables: Readonly<Record<string, Table>>;
}

/** What the server's database keeps for an endpoint's answer (server/serve-database.ts). */
export interface Storage {
  /** Resources whose tables the database holds (small tables are held anyway). */
  readonly stored?: readonly string[];
  /** Columns whose rows are looked up one value at a time, so indexed; with `unlessRendered`, only when the resource is not stored rendered. */
  readonly lookups?: readonly { readonly resource: string; readonly columns: readonly string[]; readonly unlessRendered?: boolean }[];
  /**
   * A resource whose JSON may be stored rendered, when no endpoint that answers with it takes a
   * `timezone` (its JSON then depends on the row and the links' base alone), with the columns
   * its items are found by.
   */
  readonly rendered?: { readonly resource: string; readonly keys: readonly string[] };
  /**
   * A resource whose rows are kept rendered as series (see server/series-store.ts): in the order of
   * the columns that name a series, then of `time`, found by a span of time without a statement.
   */
  readonly series?: { readonly resource: string; readonly columns: readonly string[]; readonly time: string };
  /** Columns made by SQL for the kind's statements, `… AS name`, stored with the resource's table. */
  readonly derived?: { readonly resource: string; readonly columns: readonly string[] };
  /**
   * Columns of a stored resource's table that the kind's statements read at every request, copied
   * into memory in the stored table's row order (see ServedTables.inMemory).
   */
  readonly inMemory?: { readonly resource: string; readonly columns: readonly string[] };
  /**
   * What the kind keeps in the server's process, read by `read` from the resource's stored table
   * (its `columns`), once per snapshot; the kind gets it back by endpoint (ServedTables.inProcess)
   * and alone knows its type.
   */
  readonly inProcess?: { readonly resource: string; readonly columns: readonly string[]; readonly read: (source: InProcessSource) => Promise<unknown> };
}

/** Where a kind reads what it keeps in the server's process from: the stored table, in row order. */
export interface InProcessSource {
  readonly connection: DuckDBConnection;
  /** SQL naming the stored table. */
  readonly from: string;
  readonly table: Table;
  /** The columns to keep (Storage.inProcess.columns). */
  readonly columns: readonly string[];
  readonly rows: number;
}

/** What the docs show of an answer in SQL, over the views `odsnap sql` has. */
export interface SqlScope {
  /** The view of the answer's first table. */
  readonly main: string;
  /** The view holding a resource. */
  view(resource: string): string;
  /** A path parameter's value as SQL text: the example's, or a placeholder. */
  value(param: string): string;
  /** The main table's sort, as SQL. */
  readonly order: string;
}

/** The server: the body of one request, and what its database keeps for the kind. */
export interface ServerFacet<A extends AnswerDeclaration> {
  serve(request: AnswerRequest, answer: A): Promise<unknown>;
  /**
   * Whether its answers are small and asked for again and again (a record by its id), so that the
   * server keeps the latest ones ready for the wire (server/kept-answers.ts).
   */
  readonly keepsAnswers?: boolean;
  storage?(answer: A): Storage;
}

/** The static tree: where an endpoint's files go and what each stands for, and every file. */
export interface TreeFacet<A extends AnswerDeclaration, U extends FileUnit> {
  /** Where the files go, by the query values its upstream defaults to (a list's files are pages of the size it gives without `limit`). */
  layout(defaults: Defaults): TreeLayout<U>;
  /** Every file of an endpoint. */
  files(source: FileSource, answer: A): AsyncGenerator<StaticFile>;
  /** The fingerprints its files are made by, asked before the build comes to the endpoint so they can be read ahead. */
  prints?(answer: A, defaults: Defaults): PrintsWanted;
}

/** A pull: how it crawls the kind. */
export interface CrawlFacet<A extends AnswerDeclaration, S> {
  /** What is wrong with a step of a data set's crawl plan that names an endpoint of this kind. */
  problems(step: S, endpoint: Endpoint, answer: A, scope: StepScope): string[];
  /** Runs the step: fetches what the endpoint answers into units of work. */
  run(crawl: Crawl, step: S, endpoint: Endpoint, answer: A): Promise<void>;
  /**
   * Whether a step captures the present: live data the upstream keeps no history of, which a
   * long-running mirror captures between pulls, as often as it is told (see scripts/mirror/).
   */
  present?(step: S): boolean;
}

/**
 * A kind: `A` the declaration its endpoints write, `S` the step of a crawl plan that crawls it
 * (never, for a kind a pull cannot crawl), `U` the units its static files are laid out by.
 */
export interface AnswerKind<A extends AnswerDeclaration = AnswerDeclaration, S = never, U extends FileUnit = FileUnit> {
  readonly kind: A['kind'];
  /** Query parameters of every endpoint of this kind, with their limits and defaults, and their rules. */
  params?(answer: A): { readonly params: z.ZodRawShape; readonly rules?: readonly ParamRule[] };
  /** What the declaration names that does not exist, each as the end of "its answer …". */
  problems(answer: A, scope: DeclarationScope): string[];
  /** The resources whose tables it reads, its own first. */
  reads(answer: A): readonly string[];
  /** Whether a request whose parameters are fine may still find nothing (404) but by a path value: a stored document. */
  readonly canBeMissing?: boolean;

  readonly server: ServerFacet<A>;
  readonly tree: TreeFacet<A, U>;
  /** Absent where a pull cannot crawl the kind. */
  readonly crawl?: CrawlFacet<A, S>;
  /** The docs: a query close to what it answers. */
  sql(answer: A, scope: SqlScope): string;
}
