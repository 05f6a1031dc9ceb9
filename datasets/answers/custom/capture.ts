import type { Endpoint } from '../../vocabulary/endpoint.ts';
import { envelopesOf, isObject, storedProblems, type Crawl, type RecordPlace, type StepScope } from '../crawling.ts';
import type { CustomAnswer } from './declaration.ts';

/** One array of a captured answer, stored as a resource; children are arrays inside its entries. */
export interface CapturePart {
  readonly field: string;
  readonly resource: string;
  /** Arrays inside each entry, parsed with parameter `param` set to the entry's field `from`. */
  readonly children?: readonly { readonly field: string; readonly resource: string; readonly param: string; readonly from: string }[];
}

/**
 * An endpoint showing the present (live data), captured once per pull and kept as history. Without
 * `parts`, nothing is stored: one answer is asked for (with the first value of each path
 * parameter), to see what the upstream's envelope holds beyond the spec's.
 */
export interface CaptureStep {
  readonly path: string;
  readonly parts?: readonly CapturePart[];
}

export const captureProblems = (step: CaptureStep, _endpoint: Endpoint, _answer: CustomAnswer, scope: StepScope): string[] =>
  (step.parts ?? []).flatMap((part) => [
    ...storedProblems(scope, part.resource),
    ...(part.children ?? []).flatMap((child) => storedProblems(scope, child.resource)),
  ]);

const captureShape = (body: unknown, parts: readonly CapturePart[]) => {
  const missing = parts.find((part) => !isObject(body) || !Array.isArray(body[part.field]));
  return missing ? `no array "${missing.field}"` : undefined;
};

/** The present, captured once per pull; a resumed pull keeps the capture it already made. */
export async function crawlCapture(crawl: Crawl, step: CaptureStep, endpoint: Endpoint, answer: CustomAnswer): Promise<void> {
  if (!step.parts) return probe(crawl, endpoint, answer);
  const parts = step.parts;
  const places: RecordPlace[] = parts.flatMap((part) => [
    { resource: part.resource, field: part.field, ...(part.children?.length ? { ignore: part.children.map((c) => c.field) } : {}) },
    ...(part.children ?? []).map((child) => ({
      resource: child.resource,
      field: part.field,
      within: { field: child.field, param: child.param, from: child.from },
    })),
  ]);
  for (const place of places) crawl.plan(crawl.table(place.resource).name, { kind: 'append', series: [], time: '', cutoffs: new Map() });
  crawl.planned(1);
  await crawl.unit(`GET ${endpoint.fullPath} capture`, async () => {
    const got = await crawl.get(endpoint.fullPath, {}, { shape: (body) => captureShape(body, parts) });
    const records = parts.reduce((n, part) => n + ((got.body as Record<string, unknown[]>)[part.field]?.length ?? 0), 0);
    const observed = { endpoint: endpoint.fullPath, envelopes: envelopesOf(got, endpoint) };
    return crawl.found(got, step.path, {}, places, { records, observed });
  });
}

/** One answer, with the first value of each path parameter, for what its envelope holds. */
async function probe(crawl: Crawl, endpoint: Endpoint, answer: CustomAnswer): Promise<void> {
  const values = endpoint.pathParams.map((param) => {
    const each = answer.each![param]!;
    return crawl
      .parentsOf(each.resource)
      .map((row) => row[each.column])
      .find((value) => value !== null && value !== undefined);
  });
  if (values.some((value) => value === undefined)) return;
  const path = endpoint.pathParams.reduce((p, param, i) => p.replace(`{${param}}`, encodeURIComponent(String(values[i]))), endpoint.fullPath);
  crawl.planned(1);
  await crawl.unit(`GET ${path} probe`, async () => {
    const got = await crawl.get(path, {}, { shape: (body) => (isObject(body) ? undefined : 'not an object') });
    return { meta: { observed: { endpoint: endpoint.fullPath, envelopes: envelopesOf(got, endpoint) } } };
  });
}
