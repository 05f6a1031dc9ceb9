import type { Table } from '../../core/table.ts';
import type { DeclarationScope } from './kind.ts';

/**
 * What an answer's declaration names must exist: resources, their tables' columns, the
 * endpoint's parameters. Each kind checks its own names with these, when a data set is defined,
 * so a wrong declaration fails at start with a sentence saying what to fix.
 */

export const resourceProblems = (scope: DeclarationScope, resource: string): string[] =>
  scope.resources[resource] ? [] : [`names resource "${resource}", which the data set does not declare`];

/** The table a resource is stored in, if both are declared. */
export function tableOf(scope: DeclarationScope, resource: string): Table | undefined {
  const found = scope.resources[resource];
  return found && scope.tables[found.table];
}

export const columnProblems = (table: Table | undefined, names: readonly string[]): string[] =>
  table ? names.filter((name) => !(name in table.columns)).map((name) => `names column "${name}", which table ${table.name} does not have`) : [];

export const paramProblems = (scope: DeclarationScope, names: readonly string[]): string[] =>
  names.filter((name) => !scope.params.includes(name)).map((name) => `needs parameter "${name}", which the endpoint does not declare`);

/** A resource and columns of its table. */
export const readProblems = (scope: DeclarationScope, resource: string, columns: readonly string[]): string[] => [
  ...resourceProblems(scope, resource),
  ...columnProblems(tableOf(scope, resource), columns),
];
