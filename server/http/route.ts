import type { IncomingMessage, ServerResponse } from 'node:http';

/** A request as the routes see it: checked (app.ts), its target read as a URL, and the base its links are built on. */
export interface Asked {
  readonly request: IncomingMessage;
  readonly response: ServerResponse;
  readonly url: URL;
  readonly base: string;
}

/** Answers a request, resolving with the bytes of body sent. */
export type Answer<M = unknown> = (asked: Asked, matched: M) => Promise<number>;

/**
 * A line of the routing table (server/routes.ts): what a path is to it (an endpoint and its
 * parameters, a file of the tree), or undefined when the path is not its own; and how it answers.
 * `match` is synchronous: a request is matched by every line above its own.
 */
export interface Route {
  readonly name: string;
  readonly match: (url: URL) => unknown;
  readonly answer: Answer<any>;
  /**
   * What the metrics count a request this line answers under: its name, or for a line of many
   * answers (the v1 endpoints) one of few values it makes of what its match found (an endpoint's
   * path template), never the path itself, which clients choose without limit.
   */
  readonly label: (matched: any) => string;
}

/** A line whose answer takes what its match found. */
export const route = <M>(name: string, match: (url: URL) => M | undefined, answer: Answer<M>, label: (matched: M) => string = () => name): Route => ({
  name,
  match,
  answer,
  label,
});

/** Matches these paths, exactly. */
export const exactly =
  (...paths: string[]) =>
  (url: URL) =>
    paths.includes(url.pathname) || undefined;

/** Matches every path under a prefix. */
export const under = (prefix: string) => (url: URL) => url.pathname.startsWith(prefix) || undefined;

/** Matches every path: the table's last line. */
export const anyPath = () => true;

/** Answers with the first line of `routes` that takes the request's path, telling `routed` its label first (the answer may throw). */
export function dispatch(routes: readonly Route[], asked: Asked, routed?: (label: string) => void): Promise<number> {
  for (const { match, answer, label } of routes) {
    const matched = match(asked.url);
    if (matched === undefined) continue;
    routed?.(label(matched));
    return answer(asked, matched);
  }
  throw new Error(`no route takes ${asked.url.pathname}: the table must end with one that takes every path`);
}
