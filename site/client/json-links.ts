/**
 * Beside every link of a page to a JSON file of this site, a small link that opens the file in the
 * JSON viewer (`<body data-json-viewer>`). Done in the browser, for every page at once: the viewer
 * is browser code itself, so a page read without scripts loses nothing it could use.
 */

// The viewer (json-viewer.ts) and its renderer (json-render.ts) link and check files with these two as well.

/** The viewer's address for a file: `…/view/?url=/api/public/rcn/transactions.json`. */
export const viewerUrl = (viewer: string, file: URL) => `${viewer}?url=${encodeURIComponent(file.pathname + file.search + file.hash)}`;

/** Whether a URL is a JSON file this page may open in the viewer: same origin, named .json or .jsonld. */
export const isSiteJson = (url: URL, origin: string) => url.origin === origin && /\.json(ld)?$/.test(url.pathname);

export function linkJsonToViewer(document: Document): void {
  const body = document.body;
  const viewer = body.dataset.jsonViewer;
  if (!viewer) return;
  for (const link of document.querySelectorAll<HTMLAnchorElement>('main a[href]')) {
    if (link.closest('pre, [data-json-view-root], [data-json-view]')) continue;
    let url: URL;
    try {
      url = new URL(link.href, document.baseURI);
    } catch {
      continue;
    }
    if (!isSiteJson(url, location.origin)) continue;
    const view = document.createElement('a');
    view.className = 'json-view';
    view.href = viewerUrl(viewer, url);
    view.textContent = body.dataset.jsonViewLabel ?? 'view';
    view.title = body.dataset.jsonViewTitle ?? '';
    view.dataset.jsonView = '';
    link.after(' ', view);
  }
}
