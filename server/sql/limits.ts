/** What a query may take (its limits), and how the sandbox refuses one that asks for more. */

/** Limits of a query; Infinity for none. */
export interface SqlLimits {
  readonly timeoutMs: number;
  readonly maxRows: number;
  readonly maxBytes: number;
}

/** The public endpoint's limits. */
export const defaultLimits: SqlLimits = { timeoutMs: 10_000, maxRows: 100_000, maxBytes: 64 * 1024 * 1024 };

/** No limits: on one's own machine, over one's own copy of the data (`odsnap sql`). */
export const noLimits: SqlLimits = { timeoutMs: Infinity, maxRows: Infinity, maxBytes: Infinity };

/** A query the sandbox will not run, with the reason for the client, and which limit it met if one did. */
export class SqlRefused extends Error {
  constructor(
    message: string,
    readonly limit?: 'rows' | 'bytes' | 'memory' | 'time',
  ) {
    super(message);
  }
}

/**
 * A query DuckDB failed partway through its rows without saying why: the binding ends such a
 * stream as if it were whole, and only the result's return type tells (DuckDB's C API answers
 * INVALID for a result holding an error, whose text the binding does not give).
 */
export class SqlCutShort extends SqlRefused {
  constructor() {
    super(
      'the query failed in DuckDB partway through its result, for a reason DuckDB does not pass on here: most often the memory a query may use (select fewer rows or columns, or send it again later)',
    );
  }
}

/** The refusal of a result past `maxBytes`, however it is written. */
export const resultTooLarge = (maxBytes: number) =>
  new SqlRefused(`the result is larger than ${Math.round(maxBytes / 1024 / 1024)} MiB; select fewer rows or columns`, 'bytes');
