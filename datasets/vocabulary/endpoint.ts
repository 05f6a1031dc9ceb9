import { z } from 'zod';
import type { Answer } from './answer.ts';
import { version, type ParamRule } from './param.ts';
import type { Text } from '../../core/text.ts';

export interface EndpointSpec {
  /** Relative to the data set's prefix, with path parameters in braces: `/transactions/{transactionGmlId}`. */
  readonly path: string;
  readonly summary: Text;
  /** Path and query parameters; the path ones are those named in `path`. */
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

export function completeEndpoint(prefix: string, spec: EndpointSpec): Endpoint {
  const params = { ...spec.params, version };
  const pathParams = pathParamsOf(spec.path);
  for (const name of pathParams) {
    if (!(name in params)) throw new Error(`${prefix}${spec.path}: path parameter {${name}} is not declared`);
  }
  const rules = spec.rules ?? [];
  const schema = z.object(params).superRefine((values, context) => {
    for (const rule of rules) {
      const message = rule.check(values);
      if (message) context.addIssue({ code: 'custom', path: [rule.param], message });
    }
  });
  return { ...spec, fullPath: `${prefix}${spec.path}`, params, pathParams, parse: (raw) => schema.safeParse(raw) };
}
