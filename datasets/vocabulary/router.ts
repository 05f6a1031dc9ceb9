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
  /** Per segment, the parameter's name, or null for a literal one. */
  readonly segments: readonly (string | null)[];
  /** The segments as written. */
  readonly literals: readonly string[];
}

/** Thrown for a path segment that is not valid percent-encoding. */
export class MalformedPath extends Error {}

export function createRouter(datasets: readonly Dataset[]) {
  // By number of segments, so a path is only compared with patterns of its length.
  const bySize = new Map<number, Pattern[]>();
  for (const dataset of datasets) {
    for (const endpoint of dataset.endpoints) {
      const segments = endpoint.fullPath.split('/').slice(1);
      if (!bySize.has(segments.length)) bySize.set(segments.length, []);
      bySize.get(segments.length)!.push({ dataset, endpoint, segments: segments.map((s) => /^\{(\w+)\}$/.exec(s)?.[1] ?? null), literals: segments });
    }
  }
  return (pathname: string): Route | undefined => {
    const segments = pathname.split('/').slice(1);
    // Literal matches win over parameters: /zones/{zoneId} must not take /zones/…/readings.
    let best: Pattern | undefined;
    let bestLiterals = -1;
    for (const pattern of bySize.get(segments.length) ?? []) {
      let literals = 0;
      let fits = true;
      for (let i = 0; i < segments.length; i++) {
        const name = pattern.segments[i];
        if (name === null) {
          if (pattern.literals[i] !== segments[i]) {
            fits = false;
            break;
          }
          literals++;
        } else if (segments[i] === '') {
          fits = false;
          break;
        }
      }
      if (fits && literals > bestLiterals) {
        best = pattern;
        bestLiterals = literals;
      }
    }
    if (!best) return undefined;
    const params: Record<string, string> = {};
    for (let i = 0; i < segments.length; i++) {
      const name = best.segments[i];
      if (!name) continue;
      try {
        params[name] = decodeURIComponent(segments[i]!);
      } catch {
        throw new MalformedPath(`the path segment "${segments[i]}" is not valid percent-encoding`);
      }
    }
    return { dataset: best.dataset, endpoint: best.endpoint, params };
  };
}
