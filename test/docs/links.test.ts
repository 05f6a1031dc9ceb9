import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isRelativeLink, renderMarkdown, type RenderedMarkdown } from '../../site/manual/markdown.ts';

/**
 * The README and the manual (docs/*.md) as GitHub shows them: every relative link leads to a file
 * of the repository, and every `#anchor` to a heading of the Markdown file it names. The manual's
 * links stay inside docs/, since the site publishes docs/ alone. Links are read from the rendered
 * Markdown, so a link in code is not one; heading ids are the renderer's, which are GitHub's.
 */

const README_MAX_LINES = 250;
const manual = readdirSync('docs')
  .filter((name) => name.endsWith('.md'))
  .map((name) => `docs/${name}`);
const files = ['README.md', ...manual];

const rendered = new Map<string, Promise<RenderedMarkdown>>();
const renderedFile = (file: string) => {
  if (!rendered.has(file)) rendered.set(file, renderMarkdown(readFileSync(file, 'utf8')));
  return rendered.get(file)!;
};

describe('the README and the manual', () => {
  it('keep the README short enough to read in two minutes', () => {
    const lines = readFileSync('README.md', 'utf8').trimEnd().split('\n').length;
    expect(lines).toBeLessThanOrEqual(README_MAX_LINES);
  });

  it('have no relative link to a missing file or heading, and the manual links only its own files', async () => {
    const broken: string[] = [];
    for (const file of files) {
      for (const href of (await renderedFile(file)).links.filter(isRelativeLink)) {
        const hash = href.indexOf('#');
        const path = hash < 0 ? href : href.slice(0, hash);
        const anchor = hash < 0 ? undefined : decodeURIComponent(href.slice(hash + 1));
        const target = path ? normalize(join(dirname(file), decodeURIComponent(path))) : file;
        if (!existsSync(target)) {
          broken.push(`${file}: ${href}: no file ${target}`);
          continue;
        }
        if (file.startsWith('docs/') && !manual.includes(target)) broken.push(`${file}: ${href}: not a file of docs/, which the site could not follow`);
        if (anchor === undefined) continue;
        if (!target.endsWith('.md')) broken.push(`${file}: ${href}: an anchor in a file that is not Markdown`);
        else if (!(await renderedFile(target)).ids.includes(anchor)) broken.push(`${file}: ${href}: no heading #${anchor} in ${target}`);
      }
    }
    expect([...new Set(broken)]).toEqual([]);
  });

  it('link every page of the manual from its contents (docs/README.md)', async () => {
    const linked = new Set((await renderedFile('docs/README.md')).links.filter(isRelativeLink).map((href) => `docs/${href.split('#')[0]}`));
    expect(manual.filter((file) => file !== 'docs/README.md' && !linked.has(file))).toEqual([]);
  });
});
