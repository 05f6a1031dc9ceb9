import { isRelativeLink, renderMarkdown, type RenderedMarkdown } from './markdown.ts';

/**
 * The manual: every Markdown file of the repository's docs/, one page of the site each, so that
 * the manual has one source, read on GitHub and on the site alike. docs/README.md, its contents,
 * is the first page. The files are read when the site is bundled.
 */
const sources = import.meta.glob<string>('../../docs/*.md', { query: '?raw', import: 'default', eager: true });

export interface ManualPage {
  /** Its file in docs/: `commands.md`. */
  readonly file: string;
  /** Its route: `manual/` for the contents, else `manual/<file's name>/`. */
  readonly route: string;
  /** Its first heading. */
  readonly title: string;
  readonly markdown: string;
}

const CONTENTS = 'README.md';
export const manualRoute = 'manual/';
const routeOf = (file: string) => (file === CONTENTS ? manualRoute : `${manualRoute}${file.replace(/\.md$/, '')}/`);

function titleOf(file: string, markdown: string): string {
  const title = /^# (.+)$/m.exec(markdown)?.[1];
  if (!title) throw new Error(`docs/${file} has no title: its first line should be a heading "# …"`);
  return title.replaceAll('`', '');
}

/** The pages of the manual, its contents first, then in the order of their files' names. */
export const manualPages: readonly ManualPage[] = Object.entries(sources)
  .map(([path, markdown]) => {
    const file = path.slice(path.lastIndexOf('/') + 1);
    return { file, route: routeOf(file), title: titleOf(file, markdown), markdown };
  })
  .sort((a, b) => Number(b.file === CONTENTS) - Number(a.file === CONTENTS) || a.file.localeCompare(b.file));

/**
 * A page's HTML, with each link to another file of the manual led to its page (`pageHref` makes a
 * route the page's link, in its language). A link to a file outside docs/ would lead nowhere on
 * the site, so it fails the build.
 */
export async function renderManualPage(page: ManualPage, pageHref: (route: string) => string): Promise<RenderedMarkdown> {
  const outside: string[] = [];
  const rendered = await renderMarkdown(page.markdown, (href) => {
    if (!isRelativeLink(href) || href.startsWith('#')) return href;
    const hash = href.indexOf('#');
    const path = (hash < 0 ? href : href.slice(0, hash)).replace(/^\.\//, '');
    const target = manualPages.find((other) => other.file === path);
    if (!target) outside.push(href);
    return target ? pageHref(target.route) + (hash < 0 ? '' : href.slice(hash)) : href;
  });
  if (outside.length) throw new Error(`docs/${page.file} links to ${outside.join(', ')}, which is not a page of the manual: the site cannot publish it`);
  return rendered;
}
