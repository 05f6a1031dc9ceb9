import { isSiteJson } from './json-links.ts';
import { renderFile, type ViewerTexts } from './json-render.ts';
import { dataOf, fill } from './texts.ts';
import { decodeUriPart } from './uri-part.ts';

/**
 * The viewer page: reads `?url=` (a JSON file of this site; other origins are refused, so the
 * page never shows what another site serves as if it were this one's), fetches it and shows it.
 * A redirect is refused too: it could lead anywhere.
 */
export async function mountJsonViewer(root: HTMLElement): Promise<void> {
  const texts = dataOf<ViewerTexts>(root, 'texts');
  const status = root.querySelector<HTMLElement>('[data-json-view-status]')!;
  const body = root.querySelector<HTMLElement>('[data-json-view-body]')!;
  const input = document.querySelector<HTMLInputElement>('[data-json-view-url]');
  const asked = new URLSearchParams(location.search).get('url');
  if (!asked) {
    status.textContent = fill(texts.noUrl, { example: root.dataset.example ?? '' });
    return;
  }
  if (input) input.value = asked;
  let file: URL;
  try {
    file = new URL(asked, location.href);
  } catch {
    status.textContent = fill(texts.sameOrigin, { url: asked });
    return;
  }
  if (!isSiteJson(file, location.origin)) {
    status.textContent = file.origin === location.origin ? texts.notJson : fill(texts.sameOrigin, { url: asked });
    return;
  }
  status.textContent = fill(texts.loading, { url: file.pathname });
  let value: unknown;
  try {
    const response = await fetch(file, { headers: { accept: 'application/json' }, redirect: 'error' });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const text = await response.text();
    try {
      value = JSON.parse(text);
    } catch {
      status.textContent = texts.notJson;
      return;
    }
  } catch (error) {
    status.textContent = fill(texts.failed, { reason: (error as Error).message });
    return;
  }
  const raw = document.createElement('a');
  raw.href = file.href;
  raw.textContent = root.dataset.rawLabel ?? 'JSON';
  raw.dataset.jsonViewRaw = '';
  const heading = document.createElement('p');
  heading.className = 'viewer-file';
  heading.append(Object.assign(document.createElement('code'), { textContent: file.pathname + file.hash }), ' · ', raw);
  status.textContent = '';
  body.replaceChildren(heading, ...renderFile(value as Parameters<typeof renderFile>[0], { viewer: location.pathname, file, texts }));
  document.title = `${file.pathname.split('/').at(-1)} · ${document.title}`;
  // A link to a part of a file (`dictionaries/….json#code-1`): the table's row that is that part (json-render.ts), if the file shows it.
  if (file.hash) document.getElementById(decodeUriPart(file.hash.slice(1)))?.scrollIntoView();
}
