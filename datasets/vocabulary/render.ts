import { formatInstant, type ZoneOffsets } from '../../core/zoned-time.ts';

/** The spec's own placeholder for the service address; stored JSON keeps links relative to it. */
export const BASE_URL_TOKEN = '{base_url}';

export type Query = Readonly<Record<string, string | number | undefined>>;

/**
 * What a rendering function needs beyond the row: where links point and which time zone instants
 * are shown in. The server links to itself; the static builder links into its file tree.
 */
export interface RenderContext {
  readonly timeZone: string;
  /**
   * Where links are `base` + path + query as written (the server, the pull): set, stored links
   * keep their path and query as the upstream wrote them; absent (the static tree), each link is
   * routed to a file.
   */
  readonly base?: string;
  /** The address a client follows for a v1 path and query, e.g. `/api/public/rcn/transactions/X`. */
  link(path: string, query?: Query): string;
  /** An instant (epoch ms) in ISO 8601 with the offset of `timeZone`. */
  time(ms: number): string;
  /** How the upstream writes offsets in a zone it was asked for, where a pull learned it (see the manifest's endpoints). */
  readonly zoneOffsets?: ZoneOffsets;
}

export function queryString(query: Query = {}): string {
  const pairs = Object.entries(query).filter((pair): pair is [string, string | number] => pair[1] !== undefined);
  return pairs.length ? `?${new URLSearchParams(pairs.map(([k, v]): [string, string] => [k, String(v)]))}` : '';
}

/** Links are absolute: `baseUrl` + path + query. */
export function renderContext(options: { baseUrl: string; timeZone?: string; zoneOffsets?: ZoneOffsets }): RenderContext {
  const base = options.baseUrl.replace(/\/+$/, '');
  const timeZone = options.timeZone ?? 'UTC';
  // UTC is what the upstream writes when no zone is asked: its form is in the records as written.
  const zoneOffsets = timeZone === 'UTC' ? undefined : options.zoneOffsets;
  return {
    timeZone,
    base,
    link: (path, query) => `${base}${path}${queryString(query)}`,
    time: (ms) => formatInstant(ms, timeZone, zoneOffsets),
    ...(zoneOffsets ? { zoneOffsets } : {}),
  };
}

/**
 * Stored JSON (shapes the spec does not show) keeps links as `{base_url}/api/...`; rendering turns
 * them into links of the context. Anything else is returned as it is: arrays and objects are
 * copied only where a link in them changes: most of such JSON (a parcel's coordinates) has none,
 * and copying all of it took a fifth of rendering and serializing the city's properties.
 */
export function resolveLinks(value: unknown, context: RenderContext): unknown {
  if (typeof value === 'string') {
    if (!value.startsWith(BASE_URL_TOKEN)) return value;
    const rest = value.slice(BASE_URL_TOKEN.length);
    const hash = rest.indexOf('#');
    const target = hash < 0 ? rest : rest.slice(0, hash);
    const question = target.indexOf('?');
    const path = question < 0 ? target : target.slice(0, question);
    const query = question < 0 ? undefined : Object.fromEntries(new URLSearchParams(target.slice(question + 1)));
    return context.link(path, query) + (hash < 0 ? '' : rest.slice(hash));
  }
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item, i) => {
      const resolved = resolveLinks(item, context);
      if (resolved !== item) (copy ??= [...value])[i] = resolved;
    });
    return copy ?? value;
  }
  if (value !== null && typeof value === 'object') {
    let copy: Record<string, unknown> | undefined;
    for (const [key, item] of Object.entries(value)) {
      const resolved = resolveLinks(item, context);
      // The copy has every key as its own property, `__proto__` too, so this sets only that.
      if (resolved !== item) (copy ??= { ...value })[key] = resolved;
    }
    return copy ?? value;
  }
  return value;
}

/** RFC 7386 JSON merge patch: how a row's `extra` restores what the upstream sent beyond the spec. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const result: Record<string, unknown> = target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...(target as object) } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

/**
 * The inverse of resolveLinks: an upstream's absolute links (under one of `bases`, the address
 * it writes links on first) made relative to {base_url}. Links to other hosts stay as they are.
 */
export function relativeLinks(value: unknown, bases: string | readonly string[]): unknown {
  const roots = (typeof bases === 'string' ? [bases] : bases).map((base) => base.replace(/\/+$/, ''));
  const relative = (item: unknown): unknown => {
    if (typeof item === 'string') {
      const root = roots.find((r) => item === r || item.startsWith(`${r}/`) || item.startsWith(`${r}?`) || item.startsWith(`${r}#`));
      return root === undefined ? item : BASE_URL_TOKEN + item.slice(root.length);
    }
    if (Array.isArray(item)) return item.map(relative);
    if (item !== null && typeof item === 'object') return Object.fromEntries(Object.entries(item).map(([k, v]) => [k, relative(v)]));
    return item;
  };
  return relative(value);
}
