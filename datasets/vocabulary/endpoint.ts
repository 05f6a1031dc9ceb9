import { z } from 'zod';
import { kindOf, type Answer } from '../answers/index.ts';
import { version, type ParamRule } from './param.ts';
import type { Text } from '../../core/text.ts';

export interface EndpointSpec {
  /** Relative to the data set's prefix, with path parameters in braces: `/transactions/{transactionGmlId}`. */
  readonly path: string;
  readonly summary: Text;
  /** Path and query parameters, but those the answer's kind adds (see answers/); the path ones are those named in `path`. */
  readonly params?: z.ZodRawShape;
  readonly rules?: readonly ParamRule[];
  /** The response body. */
  readonly response: z.ZodType;
  /** How it is answered from the tables. */
  readonly answer: Answer;
  /** Set on endpoints odsnap adds to the spec's, saying why. */
  readonly extension?: Text;
}

export interface Endpoint extends EndpointSpec {
  /** Full path: `/api/public/rcn/transactions/{transactionGmlId}`. */
  readonly fullPath: string;
  readonly params: z.ZodRawShape;
  readonly pathParams: readonly string[];
  /** Parses raw parameters (text) into typed values, applying every rule. */
  readonly parse: (raw: Record<string, string | undefined>) => z.ZodSafeParseResult<Record<string, unknown>>;
}

export const pathParamsOf = (path: string): string[] => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);

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
  const schema = z.object(params).superRefine((values, context) => {
    for (const rule of rules) {
      const message = rule.check(values);
      if (message) context.addIssue({ code: 'custom', path: [rule.param], message });
    }
  });
  return { ...spec, fullPath: `${prefix}${spec.path}`, params, pathParams, parse: (raw) => schema.safeParse(raw) };
}
