import type { Answer } from './answer.ts';
import type { Table } from '../../core/table.ts';

/**
 * What an endpoint's answer names must exist: resources, their tables' columns, the endpoint's
 * parameters. Checked when a data set is defined, so a wrong declaration fails at start with
 * a sentence saying what to fix, not at the first request.
 */
export function answerProblems(
  answer: Answer,
  params: readonly string[],
  pathParams: readonly string[],
  resources: Readonly<Record<string, { table: string }>>,
  tables: Readonly<Record<string, Table>>,
): string[] {
  const problems: string[] = [];
  const tableOf = (resource: string) => {
    const found = resources[resource];
    if (!found) problems.push(`names resource "${resource}", which the data set does not declare`);
    return found && tables[found.table];
  };
  const column = (table: Table | undefined, name: string) => {
    if (table && !(name in table.columns)) problems.push(`names column "${name}", which table ${table.name} does not have`);
  };
  const param = (name: string) => {
    if (!params.includes(name)) problems.push(`needs parameter "${name}", which the endpoint does not declare`);
  };
  if (answer.kind === 'custom') {
    answer.reads.forEach(tableOf);
    for (const name of pathParams) {
      const each = answer.each?.[name];
      if (!each) problems.push(`does not say where the values of path parameter {${name}} come from (each.${name})`);
      else column(tableOf(each.resource), each.column);
    }
    return problems;
  }
  const table = tableOf(answer.resource);
  switch (answer.kind) {
    case 'item':
      param(answer.param);
      answer.match.forEach((c) => column(table, c));
      break;
    case 'document':
      Object.keys(answer.where).forEach((c) => column(table, c));
      break;
    case 'page':
      ['limit', 'offset', ...Object.keys(answer.filters)].forEach(param);
      for (const filter of Object.values(answer.filters)) {
        if (filter.kind === 'intersects') filter.extent.forEach((c) => column(table, c));
        else column(table, filter.column);
      }
      break;
    case 'numbered-page':
      ['from', 'to', 'timezone', 'page', 'pageSize'].forEach(param);
      column(table, answer.time);
      break;
    case 'series':
      ['from', 'to', 'timezone'].forEach(param);
      column(table, answer.time);
      for (const parent of answer.parents) {
        param(parent.param);
        const parentTable = tableOf(parent.resource);
        [...parent.match, parent.key].forEach((c) => column(parentTable, c));
        column(table, parent.column);
      }
      break;
  }
  return problems;
}
