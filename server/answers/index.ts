import { answerCustom } from './custom.ts';
import { answerDocument, answerItem, answerList } from './lookup.ts';
import { answerPage } from './page.ts';
import type { AnswerRequest } from './request.ts';
import { answerNumberedPage, answerSeries } from './series.ts';

export type { AnswerRequest } from './request.ts';

/** Answers a request by the kind of answer its endpoint declares. */
export function answer(request: AnswerRequest): Promise<unknown> {
  const declared = request.endpoint.answer;
  switch (declared.kind) {
    case 'list':
      return answerList(request, declared);
    case 'item':
      return answerItem(request, declared);
    case 'document':
      return answerDocument(request, declared);
    case 'page':
      return answerPage(request, declared);
    case 'numbered-page':
      return answerNumberedPage(request, declared);
    case 'series':
      return answerSeries(request, declared);
    case 'custom':
      return answerCustom(request, declared);
  }
}
