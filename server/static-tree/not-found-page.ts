import type { IncomingMessage, ServerResponse } from 'node:http';
import { negotiate } from '../http/respond.ts';
import { variantIn } from './file-answer.ts';
import { readWhole, type TreeFile } from './tree-files.ts';

/** A file of the tree (the site's 404.html) as the body of a 404: whole, not to be cached or validated (the path may have a page tomorrow). */
export async function sendNotFoundPage(request: IncomingMessage, response: ServerResponse, page: TreeFile): Promise<number> {
  const variant = variantIn(page, negotiate(request.headers['accept-encoding']));
  const headers: string[] = [];
  for (let i = 0; i < variant.headers.length; i += 2) {
    const name = variant.headers[i]!;
    if (name === 'etag' || name === 'accept-ranges' || name === 'cache-control') continue;
    headers.push(name, variant.headers[i + 1]!);
  }
  const content = variant.content ?? readWhole(variant.path);
  response.writeHead(404, [...headers, 'cache-control', 'no-store', 'content-length', String(content.length)]);
  if (request.method === 'HEAD') {
    response.end();
    return 0;
  }
  response.end(content);
  return content.length;
}
