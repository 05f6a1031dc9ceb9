/**
 * Errors a client can cause, answered as RFC 9457 problem details. Anything else is a fault of
 * the server: logged, and answered 500 without internals.
 */
export class Problem extends Error {
  constructor(
    readonly status: number,
    /** Last segment of the problem type URI, e.g. `invalid-parameter`. */
    readonly slug: string,
    readonly title: string,
    detail: string,
    /** Extension members, e.g. the offending parameter. */
    readonly members: Readonly<Record<string, unknown>> = {},
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(detail);
  }
}

export const invalidParameter = (param: string, detail: string, errors?: { param: string; detail: string }[]) =>
  new Problem(400, 'invalid-parameter', 'Invalid parameter', detail, { param, ...(errors && errors.length > 1 ? { errors } : {}) });

export const notFound = (detail: string, param?: string) => new Problem(404, 'not-found', 'Not found', detail, param ? { param } : {});

export const methodNotAllowed = (method: string) =>
  new Problem(405, 'method-not-allowed', 'Method not allowed', `${method} is not supported; the service is read-only (GET and HEAD)`, {}, { allow: 'GET, HEAD, OPTIONS' });

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
