import { describe, expect, it } from 'vitest';
import { kindOf, kinds } from '../../../datasets/answers/index.ts';
import { unitOf } from '../../../datasets/answers/tree.ts';
import { datasets } from '../../../datasets/index.ts';
import type { Dataset } from '../../../datasets/vocabulary/dataset.ts';
import type { Endpoint } from '../../../datasets/vocabulary/endpoint.ts';
import { parking } from '../../fixtures/parking/index.ts';

/** One suite, run for every kind of answer over the endpoints the registry and the fifth data set answer with it. */

const all = [...datasets, parking].flatMap((dataset) => dataset.endpoints.map((endpoint) => ({ dataset, endpoint })));

const scopeOf = (dataset: Dataset, endpoint: Endpoint) => ({
  resources: dataset.resources,
  tables: dataset.tables,
  params: Object.keys(endpoint.params),
  pathParams: endpoint.pathParams,
});

/** The declaration with every resource it names replaced by one the data set lacks. */
const namingNothing = (answer: object): object =>
  Object.fromEntries(Object.entries(answer).map(([key, value]) => [key, key === 'resource' ? 'nope' : key === 'reads' ? ['nope'] : value]));

describe.each(kinds.map((kind) => [kind.kind, kind] as const))('the %s kind', (name, kind) => {
  const answered = all.filter(({ endpoint }) => endpoint.answer.kind === name);

  it('answers some endpoint of the registry or the fifth data set', () => {
    expect(answered.length).toBeGreaterThan(0);
    for (const { endpoint } of answered) expect(kindOf(endpoint.answer)).toBe(kind);
  });

  it('passes the declarations of the registry, and refuses one that names a resource the data set lacks, saying which', () => {
    for (const { dataset, endpoint } of answered) {
      expect(kind.problems(endpoint.answer, scopeOf(dataset, endpoint)), endpoint.fullPath).toEqual([]);
      expect(kind.problems(namingNothing(endpoint.answer), scopeOf(dataset, endpoint)), endpoint.fullPath).toContain(
        'names resource "nope", which the data set does not declare',
      );
    }
  });

  it('reads resources the data set declares, and shows the docs a query over the view of the first', () => {
    for (const { dataset, endpoint } of answered) {
      const reads = kind.reads(endpoint.answer);
      for (const resource of reads) expect(dataset.resources, endpoint.fullPath).toHaveProperty(resource);
      const view = `${dataset.sqlName}_${dataset.resources[reads[0]!]!.table}`;
      const sql = kind.sql(endpoint.answer, {
        main: view,
        view: (r) => `${dataset.sqlName}_${dataset.resources[r]!.table}`,
        value: (p) => `'{${p}}'`,
        order: 'x',
      });
      expect(sql, endpoint.fullPath).toMatch(new RegExp(`^SELECT \\* FROM ${view}\\b`));
    }
  });

  it('has a static file for the request with no query exactly when the endpoint answers that request', () => {
    for (const { endpoint } of answered) {
      const values = Object.fromEntries(endpoint.pathParams.map((p) => [p, p === 'year' ? '2024' : 'x']));
      expect(unitOf(endpoint, {}) !== undefined, endpoint.fullPath).toBe(endpoint.parse(values).success);
    }
  });

  it('adds its parameters to every endpoint it answers, right after the path ones', () => {
    for (const { endpoint } of answered) {
      const added = Object.keys(kind.params?.(endpoint.answer).params ?? {});
      const at = endpoint.pathParams.length;
      expect(Object.keys(endpoint.params).slice(at, at + added.length), endpoint.fullPath).toEqual(added);
    }
  });
});
