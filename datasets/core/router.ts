import type { Dataset } from './dataset.ts';
import type { Endpoint } from './endpoint.ts';

/** Which endpoint a path is, and its path parameters, from the data-set declarations. */
export interface Route {
  readonly dataset: Dataset;
  readonly endpoint: Endpoint;
  readonly params: Record<string, string>;
}

interface Pattern {
  readonly dataset: Dataset;
  readonly endpoint: Endpoint;
  /** Literal segments as they are, parameters as `{name}`. */
  readonly segments: readonly string[];
}

/** Thrown for a path segment that is not valid percent-encoding. */
export class MalformedPath extends Error {}

export function createRouter(datasets: readonly Dataset[]) {
  const patterns: Pattern[] = datasets.flatMap((dataset) =>
    dataset.endpoints.map((endpoint) => ({ dataset, endpoint, segments: endpoint.fullPath.split('/').slice(1) })),
  );
  return (pathname: string): Route | undefined => {
    const segments = pathname.split('/').slice(1);
    // Literal matches win over parameters: /zones/{zoneId} must not take /zones/…/readings.
    let best: { pattern: Pattern; params: Record<string, string>; literals: number } | undefined;
    for (const pattern of patterns) {
      if (pattern.segments.length !== segments.length) continue;
      const params: Record<string, string> = {};
      let literals = 0;
      const fits = pattern.segments.every((expected, i) => {
        const actual = segments[i]!;
        const name = /^\{(\w+)\}$/.exec(expected)?.[1];
        if (!name) return expected === actual && ++literals > 0;
        if (actual === '') return false;
        try {
          params[name] = decodeURIComponent(actual);
        } catch {
          throw new MalformedPath(`the path segment "${actual}" is not valid percent-encoding`);
        }
        return true;
      });
      if (fits && (!best || literals > best.literals)) best = { pattern, params, literals };
    }
    return best && { dataset: best.pattern.dataset, endpoint: best.pattern.endpoint, params: best.params };
  };
}
