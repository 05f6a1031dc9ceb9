import type { AnswerDeclaration, Endpoint } from '../vocabulary/endpoint.ts';
import type { StepScope } from './crawling.ts';
import { custom } from './custom/index.ts';
import { document } from './document/index.ts';
import { item } from './item/index.ts';
import type { AnswerKind, DeclarationScope } from './kind.ts';
import { list } from './list/index.ts';
import { numberedPage } from './numbered-page/index.ts';
import { page } from './page/index.ts';
import { series } from './series/index.ts';

/**
 * The registry of answer kinds (see kind.ts). The engines find an endpoint's kind here by its
 * declaration's `kind`. A new kind is a module, imported and listed here, and nothing else: what
 * its endpoints declare and what its crawl steps take join the unions below by its type.
 */
const registered = [list, item, document, page, numberedPage, series, custom] as const;

export const kinds: readonly AnswerKind<any, any, any>[] = registered;

type Registered = (typeof registered)[number];
type DeclarationOf<K> = K extends AnswerKind<infer A, any, any> ? A : never;
type StepOf<K> = K extends AnswerKind<any, infer S, any> ? S : never;

/** How an endpoint is answered: one of the kinds' declarations. */
export type Answer = DeclarationOf<Registered>;

/** A step of a data set's crawl plan: it names an endpoint, and its kind says what else it takes. */
export type CrawlStep = StepOf<Registered>;
export type CrawlPlan = readonly CrawlStep[];

const byKind = new Map<string, AnswerKind<any, any, any>>(kinds.map((kind) => [kind.kind, kind]));

/** An endpoint's answer as its kind declares it, where it is of the kind named: for the few places outside a kind that need one kind's fields. */
export function answerAs<K extends Answer['kind']>(answer: AnswerDeclaration, kind: K): Extract<Answer, { readonly kind: K }> | undefined {
  return answer.kind === kind ? (answer as Extract<Answer, { readonly kind: K }>) : undefined;
}

/** The kind that answers a declaration. */
export function kindOf<A extends AnswerDeclaration>(answer: A): AnswerKind<A, any, any> {
  const kind = byKind.get(answer.kind);
  if (!kind) throw new Error(`no kind of answer is called "${answer.kind}"; the kinds are ${kinds.map((k) => k.kind).join(', ')}`);
  return kind;
}

export type { AnswerKind } from './kind.ts';
export { filter, type Filter } from './page/index.ts';
export type { Parent } from './series/index.ts';
export type { Query } from './custom/index.ts';
export type { CapturePart } from './custom/capture.ts';

/** What an endpoint's answer names that the data set lacks (see DeclarationScope), each ending "its answer …". */
export function answerProblems(endpoint: Endpoint, scope: Omit<DeclarationScope, 'params' | 'pathParams'>): string[] {
  return kindOf(endpoint.answer).problems(endpoint.answer, { ...scope, params: Object.keys(endpoint.params), pathParams: endpoint.pathParams });
}

/** What is wrong with a crawl plan: steps naming endpoints that do not exist or cannot be crawled, or what their kinds refuse. */
export function crawlProblems(plan: CrawlPlan, scope: StepScope): string[] {
  return plan.flatMap((step) => {
    const endpoint = scope.endpoints.find((e) => e.path === step.path);
    if (!endpoint) return [`crawls ${step.path}, which the data set does not declare`];
    const { crawl } = kindOf(endpoint.answer);
    if (!crawl) return [`crawls ${step.path}, which is answered as ${endpoint.answer.kind}: a pull cannot crawl that kind`];
    return crawl.problems(step, endpoint, endpoint.answer, scope);
  });
}
