import { z } from 'zod';
import { kindOf } from '../../datasets/answers/index.ts';
import type { Endpoint } from '../../datasets/vocabulary/endpoint.ts';
import { doc, named } from '../../datasets/vocabulary/field.ts';
import { text, type Text } from '../../core/text.ts';
import { instanceOf, problemBody, refusedParameters } from '../../core/problem.ts';

/** The RFC 9457 body the server answers every client error with (core/problem.ts). */
export const problem = named(
  'Problem',
  z.object({
    type: doc(
      z.url(),
      'URI of the problem type, under the service’s address: …/problems/<kind>; it answers with a page saying what the type means.',
      'URI rodzaju problemu pod adresem usługi: …/problems/<rodzaj>; odpowiada stroną opisującą ten rodzaj.',
    ),
    title: doc(z.string(), 'Short summary of the problem type.', 'Krótki opis rodzaju problemu.'),
    status: doc(z.number().int(), 'The HTTP status code.', 'Kod stanu HTTP.'),
    detail: doc(z.string(), 'What went wrong in this request, saying what to fix.', 'Co poszło nie tak w tym żądaniu i co poprawić.'),
    instance: doc(z.string(), 'The absolute address of the request that caused it.', 'Pełny adres żądania, które go wywołało.'),
    param: doc(z.string().optional(), 'The parameter to blame, when one is.', 'Parametr, którego dotyczy problem, jeśli taki jest.'),
    errors: doc(
      z.array(z.object({ param: z.string(), detail: z.string() })).optional(),
      'Every invalid parameter, when more than one is.',
      'Wszystkie błędne parametry, gdy jest ich więcej niż jeden.',
    ),
  }),
  'An RFC 9457 problem details body (application/problem+json).',
  'Treść opisu problemu według RFC 9457 (application/problem+json).',
);

export interface ProblemStatus {
  readonly status: 400 | 404 | 405;
  /** Name of the shared response in the OpenAPI document. */
  readonly name: string;
  readonly when: Text;
}

const invalid: ProblemStatus = {
  status: 400,
  name: 'InvalidParameter',
  when: text(
    'A parameter is missing, malformed or out of its limits; `param` names it, `errors` lists every one when several are wrong.',
    'Brak parametru, ma on zły format albo wykracza poza limity; `param` go wskazuje, a `errors` wymienia wszystkie, gdy błędnych jest kilka.',
  ),
};
const notFound: ProblemStatus = {
  status: 404,
  name: 'NotFound',
  when: text(
    'A path value names nothing in the snapshot (`param` names the parameter), or the snapshot holds no such document.',
    'Wartość w ścieżce nie wskazuje niczego w migawce (`param` wskazuje parametr) albo migawka nie zawiera takiego dokumentu.',
  ),
};
const methodNotAllowed: ProblemStatus = {
  status: 405,
  name: 'MethodNotAllowed',
  when: text('Any method but GET, HEAD and OPTIONS: the service is read-only.', 'Każda metoda poza GET, HEAD i OPTIONS: usługa służy tylko do odczytu.'),
};

export const problemStatuses: readonly ProblemStatus[] = [invalid, notFound, methodNotAllowed];

/** The problems an endpoint can answer: 404 only where a path value or a stored document can be missing. */
export function problemsOf(endpoint: Endpoint): readonly ProblemStatus[] {
  const canMiss = endpoint.pathParams.length > 0 || Boolean(kindOf(endpoint.answer).canBeMissing);
  return canMiss ? problemStatuses : [invalid, methodNotAllowed];
}

/**
 * A real 400 of the endpoint: a request with one parameter wrong, parsed by the endpoint's own
 * parser and shaped as the server shapes it, so the example cannot drift from the server.
 * Endpoints with required query parameters show the request that leaves them out.
 */
export function invalidRequestExample(endpoint: Endpoint, options: { base: string; pathValues?: Readonly<Record<string, string>> }) {
  const pathValues = Object.fromEntries(endpoint.pathParams.map((name) => [name, options.pathValues?.[name] ?? placeholder(endpoint, name)]));
  const path = endpoint.fullPath.replace(/\{(\w+)\}/g, (_, name: string) =>
    options.pathValues?.[name] ? encodeURIComponent(pathValues[name]!) : pathValues[name]!,
  );
  const queryParams = Object.keys(endpoint.params).filter((name) => !endpoint.pathParams.includes(name) && name !== 'version');
  const needsNothing = endpoint.parse(pathValues).success;
  const query: Record<string, string> = needsNothing ? badValue(endpoint, queryParams, pathValues) : {};
  const parsed = endpoint.parse({ ...query, ...pathValues });
  if (parsed.success) throw new Error(`${endpoint.fullPath}: no invalid request found for its example`);
  const search = new URLSearchParams(query).toString();
  const target = `${path}${search ? `?${search}` : ''}`;
  return { target, body: problemBody(refusedParameters(parsed.error.issues), options.base, instanceOf(target, options.base)) };
}

/** A query with the first parameter that refuses a value; `version=v2` when none does. */
function badValue(endpoint: Endpoint, names: readonly string[], pathValues: Record<string, string>): Record<string, string> {
  for (const name of names) {
    for (const value of ['x', '']) {
      if (!endpoint.parse({ ...pathValues, [name]: value }).success) return { [name]: value };
    }
  }
  return { version: 'v2' };
}

/** A path value for an example without real ones: `{name}` where the parameter takes any text, else the smallest number it takes. */
function placeholder(endpoint: Endpoint, name: string): string {
  const schema = endpoint.params[name] as z.ZodType;
  if (schema.safeParse(`{${name}}`).success) return `{${name}}`;
  const minimum = (z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as { minimum?: number }).minimum;
  return String(minimum ?? 1);
}
