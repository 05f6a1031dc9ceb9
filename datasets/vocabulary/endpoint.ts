import type { z } from 'zod';
import type { ParamRule } from './param.ts';
import type { Text } from '../../core/text.ts';

/** What every declaration of an answer carries: its kind (see datasets/answers/kind.ts, which knows the rest). */
export interface AnswerDeclaration {
  readonly kind: string;
}

/** An endpoint as a data set declares it; `A` is what its answer may be (see datasets/define.ts). */
export interface EndpointSpec<A extends AnswerDeclaration = AnswerDeclaration> {
  /** Relative to the data set's prefix, with path parameters in braces: `/transactions/{transactionGmlId}`. */
  readonly path: string;
  readonly summary: Text;
  /** Path and query parameters, but those the answer's kind adds (see answers/); the path ones are those named in `path`. */
  readonly params?: z.ZodRawShape;
  readonly rules?: readonly ParamRule[];
  /** The response body. */
  readonly response: z.ZodType;
  /** How it is answered from the tables. */
  readonly answer: A;
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
