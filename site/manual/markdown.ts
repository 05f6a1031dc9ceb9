import { createMarkdownProcessor } from '@astrojs/markdown-remark';

/**
 * Markdown to HTML with Astro's own renderer (GitHub-flavoured, heading ids as GitHub makes them,
 * so that a link's `#anchor` works on GitHub and on the site alike). Code is left unhighlighted, as
 * in the rest of the site.
 */

/** An element or text of the HTML tree the renderer builds (hast), as far as is read here. */
interface HtmlNode {
  type: string;
  tagName?: string;
  properties?: Record<string, unknown>;
  children?: HtmlNode[];
}

export interface RenderedMarkdown {
  readonly html: string;
  /** The ids of its headings, the targets of `#anchor` links. */
  readonly ids: readonly string[];
  /** Every link's `href` as the Markdown wrote it. */
  readonly links: readonly string[];
}

/** A link's target without a scheme or a leading slash: a file beside the Markdown file, or an anchor in it. */
export const isRelativeLink = (href: string) => !/^([a-z][a-z0-9+.-]*:|\/)/i.test(href);

/**
 * Renders `markdown`; `link` gives each link's new `href` from the one written (every link is kept
 * as written without it). Tables are put in a box that scrolls sideways, as the site's others are.
 */
export async function renderMarkdown(markdown: string, link?: (href: string) => string): Promise<RenderedMarkdown> {
  const links: string[] = [];
  const rewrite = () => (tree: HtmlNode) => {
    const visit = (node: HtmlNode) => {
      node.children?.forEach((child, i) => {
        visit(child);
        if (child.tagName === 'table') node.children![i] = { type: 'element', tagName: 'div', properties: { className: ['table-scroll'] }, children: [child] };
      });
      if (node.tagName === 'a' && typeof node.properties?.href === 'string') {
        links.push(node.properties.href);
        if (link) node.properties.href = link(node.properties.href);
      }
    };
    visit(tree);
  };
  const processor = await createMarkdownProcessor({ syntaxHighlight: false, rehypePlugins: [rewrite], experimentalHeadingIdCompat: true });
  const { code, metadata } = await processor.render(markdown);
  return { html: code, ids: metadata.headings.map((heading) => heading.slug), links };
}
