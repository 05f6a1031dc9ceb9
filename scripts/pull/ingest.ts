import { z } from 'zod';
import type { Dataset, Resource } from '../../datasets/core/dataset.ts';
import { patchOf } from '../../datasets/core/parse.ts';
import { relativeLinks, renderContext, type RenderContext } from '../../datasets/core/render.ts';
import type { Table } from '../../datasets/core/table.ts';

/**
 * How one upstream record becomes a stored row: validated against its resource's schema, parsed
 * into the table's columns, and whatever it holds beyond what that row renders back (fields the
 * spec does not name, other spellings) kept in `extra`, so nothing the upstream sent is lost.
 * A record that fails validation is not a row: it is quarantined with the reason.
 */

export interface Where {
  /** Parameters of the request (path ones and from/to), e.g. { counterId: 'x' }. */
  readonly params: Readonly<Record<string, string>>;
  /** The request's path relative to the data set. */
  readonly path: string;
  readonly url: string;
  /** Epoch ms of the answer: the capture time of live data. */
  readonly fetchedAt: number;
}

export type Ingested =
  | { readonly ok: true; readonly table: string; readonly row: Record<string, unknown> }
  | { readonly ok: false; readonly reason: string };

export class Ingest {
  private readonly context: RenderContext;

  constructor(
    private readonly dataset: Dataset,
    private readonly upstream: string,
  ) {
    this.context = renderContext({ baseUrl: upstream });
  }

  resource(name: string): Resource {
    const resource = this.dataset.resources[name];
    if (!resource?.parse) throw new Error(`${this.dataset.name}: resource ${name} cannot be stored from an upstream record`);
    return resource;
  }

  table(resource: string): Table {
    return this.dataset.tables[this.resource(resource).table]!;
  }

  /** `ignore` names fields stored elsewhere (arrays of child records). */
  record(resourceName: string, record: unknown, where: Where, ignore?: ReadonlySet<string>): Ingested {
    const resource = this.resource(resourceName);
    const checked = resource.schema.safeParse(record);
    if (!checked.success) return { ok: false, reason: z.prettifyError(checked.error).replace(/\n\s*/g, ' ') };
    let row: Record<string, unknown>;
    try {
      row = resource.parse!(checked.data, { ...where, json: (value) => relativeLinks(value, this.upstream) });
    } catch (error) {
      return { ok: false, reason: `cannot be stored: ${(error as Error).message}` };
    }
    const patch = patchOf(record, resource.render({ ...row, extra: null }, this.context), ignore);
    row.extra = patch === undefined ? null : relativeLinks(patch, this.upstream);
    return { ok: true, table: resource.table, row };
  }
}

/** A row as the journal keeps it: its values in the table's column order. */
export const rowValues = (table: Table, row: Readonly<Record<string, unknown>>): unknown[] => Object.keys(table.columns).map((name) => row[name] ?? null);

export function rowObject(table: Table, values: readonly unknown[]): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  Object.keys(table.columns).forEach((name, i) => (row[name] = values[i]));
  return row;
}
