import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { staticTree } from '../server/static-tree.ts';

/** What the browser benches (browser.ts, table-pages.ts) share: their arguments, and a static host on loopback. */

/** The value after `name` on the command line (`--data DIR`), if it is there. */
export function argument(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : undefined;
}

/**
 * Serves a tree's pages as a static host would, on a free loopback port, with /downloads/ from
 * another tree's (the pages do not depend on the data's size: a site built over a small sample
 * can serve a large one's downloads).
 */
export async function hostStatic(pagesDir: string, downloadsDir: string): Promise<{ origin: string; close(): void }> {
  const pages = staticTree(pagesDir);
  const downloads = staticTree(downloadsDir);
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://bench.invalid').pathname;
    const served = path.startsWith('/downloads/') ? downloads : pages;
    const file = served.fileAt(path);
    if (!file) response.writeHead(404).end();
    else served.send(request, response, file).catch(() => response.writeHead(500).end());
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => void server.close() };
}
