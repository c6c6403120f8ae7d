import type { Root as HastRoot } from 'hast';
import type { Root } from 'mdast';
import { toString as mdastText } from 'mdast-util-to-string';
import rehypeSanitize from 'rehype-sanitize';
import rehypeStringify from 'rehype-stringify';
import remarkParse from 'remark-parse';
import remarkRehype from 'remark-rehype';
import { unified } from 'unified';
import { visit } from 'unist-util-visit';
import { markupCharacters } from '../ingest/parse-cost.ts';
import { remarkGfmTables } from '../ingest/parse-markdown.ts';
import { storedTablesAsGfm } from './stored-tables.ts';

/**
 * A stored section's text (the docs' Markdown, components reduced to text) as HTML for the page view.
 * Raw HTML in it is shown as the text it is, and the result is sanitized (GitHub's schema) besides; the
 * page view's CSP lets nothing load. Rendering runs on the request path, so it is bounded: a section
 * longer than `MAX_RENDERED_SECTION_CHARS`, or with more markup than `MAX_RENDERED_SECTION_MARKUP`
 * (Markdown's worst cases grow with delimiters), is shown as preformatted text instead.
 */
export const MAX_RENDERED_SECTION_CHARS = 8_000;
export const MAX_RENDERED_SECTION_MARKUP = 400;

/** Raw HTML nodes become text: shown as written, never interpreted. */
function rawHtmlAsText() {
  return (tree: Root) => {
    visit(tree, 'html', (node, index, parent) => {
      if (parent && index !== undefined) parent.children[index] = { type: 'text', value: node.value };
    });
  };
}

/** Links to `/path` in the docs point into the page view: `<pagesBase>path`. */
function docsLinksInto(pagesBase: string) {
  return (tree: HastRoot) => {
    visit(tree, 'element', (node) => {
      const href = node.properties.href;
      if (node.tagName === 'a' && typeof href === 'string' && href.startsWith('/') && !href.startsWith('//'))
        node.properties.href = pagesBase + href.slice(1);
    });
  };
}

const processor = unified()
  .use(remarkParse)
  .use(remarkGfmTables)
  .use(rawHtmlAsText)
  .use(remarkRehype)
  .use(rehypeSanitize)
  .freeze();
const stringify = unified().use(rehypeStringify).freeze();

/**
 * The section as HTML, with the docs' site-relative links under `pagesBase`; null when it is too long or
 * too dense with markup to render here.
 */
export function sectionHtml(text: string, pagesBase: string): string | null {
  if (text.length > MAX_RENDERED_SECTION_CHARS) return null;
  if (markupCharacters(text) > MAX_RENDERED_SECTION_MARKUP) return null;
  const tree = processor.runSync(processor.parse(storedTablesAsGfm(text))) as HastRoot;
  docsLinksInto(pagesBase)(tree);
  return stringify.stringify(tree);
}

/**
 * Markdown's text without its syntax (an answer's preview in a list: "Set `X`" reads "Set X"), under the
 * same bounds as `sectionHtml`; beyond them the text is returned as it is.
 */
export function markdownPlainText(text: string): string {
  if (text.length > MAX_RENDERED_SECTION_CHARS || markupCharacters(text) > MAX_RENDERED_SECTION_MARKUP)
    return text;
  // Block by block, so paragraphs and list items keep a space between them.
  const blocks: string[] = [];
  visit(processor.parse(text), (node) => {
    if (
      node.type !== 'paragraph' &&
      node.type !== 'heading' &&
      node.type !== 'code' &&
      node.type !== 'tableCell'
    )
      return;
    blocks.push(mdastText(node, { includeHtml: false }));
    return 'skip';
  });
  return blocks.join(' ').replace(/\s+/g, ' ').trim();
}
