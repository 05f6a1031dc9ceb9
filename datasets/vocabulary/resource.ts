import type { z } from 'zod';
import type { Columns, RowOf, TableSpec } from '../../core/table.ts';
import type { ParseContext } from './parse.ts';
import type { RenderContext } from './render.ts';

/**
 * A v1 resource stored one per row of a table: its schema (the spec's fields), the one function
 * that renders a row as that resource, shared by the server and the static builder, and its
 * inverse, which pull uses to store what an upstream sends.
 */
export interface ResourceSpec<C extends Columns = Columns, S extends z.ZodType = z.ZodType> {
  readonly table: TableSpec<C>;
  readonly schema: S;
  readonly render: (row: RowOf<C>, context: RenderContext) => z.output<S>;
  /** Columns the rendering never reads (a list form leaving out details), so engines need not load them. */
  readonly omits?: readonly (keyof C & string)[];
  /** The row an upstream record of this resource is stored as (`extra` aside). */
  readonly parse?: (record: z.output<S>, context: ParseContext) => RowOf<C>;
}

export const defineResource = <C extends Columns, S extends z.ZodType>(
  table: TableSpec<C>,
  schema: S,
  render: (row: RowOf<C>, context: RenderContext) => z.output<S>,
  options: Pick<ResourceSpec<C, S>, 'omits' | 'parse'> = {},
): ResourceSpec<C, S> => ({ table, schema, render, ...options });
