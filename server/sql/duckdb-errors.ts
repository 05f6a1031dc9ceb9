/**
 * A DuckDB error as a reader of `/api/sql` or `odsnap sql` needs it: its first line and the hints
 * DuckDB adds below it (the columns a misspelt one could be, the table it meant), without the
 * drawing of the query under a caret. A table that is not there is answered with the tables that
 * are, as DuckDB's own guess may be one of its system tables.
 */
export function readableError(message: string, tables: readonly string[]): string {
  const [first = '', ...rest] = message.split('\n');
  const hints = rest.filter((line) => /^(Candidate bindings|Did you mean|Candidate tables)\b/.test(line.trim())).map((line) => line.trim());
  const missingTable = /^Catalog Error: Table with name (.+?) does not exist/.exec(first);
  if (!missingTable) return [first, ...hints].join('\n');
  const meant = hints.map((hint) => /^Did you mean "(.+)"\?$/.exec(hint)?.[1]).find((name) => name !== undefined && tables.includes(name));
  return [first, ...(meant ? [`Did you mean "${meant}"?`] : []), `The tables here: ${tables.join(', ')}.`].join('\n');
}
