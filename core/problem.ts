/**
 * Errors a client can cause, answered as RFC 9457 problem details. Anything else is a fault of
 * the server: logged, and answered 500 without internals.
 */
import { escapeHtml } from './text.ts';

/**
 * Every problem type the service answers with. A problem's `type` is `<base>/problems/<slug>`, and
 * that address answers with what is written here (RFC 9457 §3.1.1: a type, dereferenced, should
 * document itself).
 */
export const problemTypes = {
  'invalid-parameter': {
    status: 400,
    title: 'Invalid parameter',
    about:
      'A query or path parameter is malformed, out of range or given more than once. `param` names it and `detail` says what it must be; when several are wrong, `errors` lists each with its own `param` and `detail`.',
  },
  'bad-request': {
    status: 400,
    title: 'Bad request',
    about: 'The request itself cannot be read: it is not valid HTTP/1.1, its target is not a URL, or an HTTP/1.1 request has no Host header.',
  },
  'sql-refused': {
    status: 400,
    title: 'Query refused',
    about:
      'The SQL sent to /api/sql was not run, or was stopped: it is not a single read-only query, it failed in DuckDB (a syntax error, an unknown table, a file outside the snapshot), it ran past the time limit, or its result is past the row or byte limit. `detail` says which.',
  },
  'not-found': {
    status: 404,
    title: 'Not found',
    about:
      'No endpoint answers at this path, or the id or code in it names nothing in the current snapshot. `param` names the path parameter when it is an id.',
  },
  'method-not-allowed': {
    status: 405,
    title: 'Method not allowed',
    about: 'The service is read-only: it answers GET, HEAD and OPTIONS (the `Allow` header says so).',
  },
  'request-timeout': {
    status: 408,
    title: 'Request timeout',
    about:
      'The request did not arrive in time: its headers within 10 seconds, or the whole of it within 30. The connection is closed; the request may be sent again.',
  },
  'expectation-failed': {
    status: 417,
    title: 'Expectation failed',
    about: 'The request has an Expect header the service cannot meet: it meets only `100-continue`.',
  },
  'uri-too-long': {
    status: 414,
    title: 'URI too long',
    about: 'The request target is longer than the service reads (8,192 characters).',
  },
  'header-fields-too-large': {
    status: 431,
    title: 'Request header fields too large',
    about: 'The request line and headers together are longer than the service reads (16 KiB).',
  },
  'service-unavailable': {
    status: 503,
    title: 'Service unavailable',
    about:
      'The service cannot answer this request now, but may shortly: as many SQL queries as it runs at once are running or waiting, or the SQL process was stopped while the query ran. `Retry-After` says when to send it again.',
  },
  'internal-error': {
    status: 500,
    title: 'Internal error',
    about: 'The service failed to answer a request it should have answered. The failure is logged; the request may be sent again.',
  },
} as const satisfies Record<string, { status: number; title: string; about: string }>;

export type ProblemType = keyof typeof problemTypes;

export class Problem extends Error {
  readonly status: number;
  readonly title: string;

  constructor(
    readonly slug: ProblemType,
    detail: string,
    /** Extension members, e.g. the offending parameter. */
    readonly members: Readonly<Record<string, unknown>> = {},
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(detail);
    ({ status: this.status, title: this.title } = problemTypes[slug]);
  }
}

export const invalidParameter = (param: string, detail: string, errors?: { param: string; detail: string }[]) =>
  new Problem('invalid-parameter', detail, { param, ...(errors && errors.length > 1 ? { errors } : {}) });

/**
 * The problem of parameters an endpoint's parser refused: each named with the parser's message,
 * once (a value can fail several checks at once: 2^53 is neither a safe whole number nor in range).
 */
export function refusedParameters(issues: readonly { path: readonly PropertyKey[]; message: string }[]): Problem {
  const errors = issues
    .map((issue) => ({ param: String(issue.path[0] ?? ''), detail: `${String(issue.path[0] ?? 'request')} ${issue.message}` }))
    .filter((error, i, all) => all.findIndex((other) => other.param === error.param) === i);
  return invalidParameter(errors[0]!.param, errors[0]!.detail, errors);
}

export const notFound = (detail: string, param?: string) => new Problem('not-found', detail, param ? { param } : {});

export const methodNotAllowed = (method: string) =>
  new Problem('method-not-allowed', `${method} is not supported; the service is read-only (GET and HEAD)`, {}, { allow: 'GET, HEAD, OPTIONS' });

/** The problem's `instance`: the request's own address, absolute, so it holds under a --public-url with a path. */
export const instanceOf = (target: string, base: string) =>
  (/^https?:\/\//i.test(target) ? target : `${base}${target.startsWith('/') ? '' : '/'}${target}`).slice(0, 2048);

/** The problem body; `type` is a URI under the service's own address. */
export function problemBody(problem: Problem, base: string, instance: string) {
  return {
    type: `${base}/problems/${problem.slug}`,
    title: problem.title,
    status: problem.status,
    detail: problem.message,
    instance,
    ...problem.members,
  };
}

/** The page a problem type's URI answers: its title, status and meaning, for people. */
export function problemTypePage(slug: string): string | undefined {
  if (!Object.hasOwn(problemTypes, slug)) return undefined;
  const type = problemTypes[slug as ProblemType];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${type.title} (${type.status})</title></head>
<body><h1>${type.title}</h1><p>HTTP status ${type.status}; problem type <code>${slug}</code> (RFC 9457).</p><p>${escapeHtml(type.about).replace(/`([^`]+)`/g, '<code>$1</code>')}</p></body></html>
`;
}
