import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { visit } from 'unist-util-visit';
import { remarkGfmTables } from '../ingest/parse-markdown.ts';

const readings = [
  unified().use(remarkParse).freeze(),
  unified().use(remarkParse).use(remarkGfmTables).freeze(),
];

/**
 * The nodes a Markdown renderer would make live (links, images, definitions, raw HTML), each as
 * `type url-or-html`, read as CommonMark and as GFM (whose tables split a line at `|` first).
 */
export function liveMarkup(markdown: string): string[] {
  const found = new Set<string>();
  for (const reading of readings)
    visit(reading.parse(markdown), (node) => {
      if (['link', 'image', 'definition', 'html', 'linkReference', 'imageReference'].includes(node.type))
        found.add(`${node.type} ${'url' in node ? node.url : 'value' in node ? node.value : ''}`);
    });
  return [...found];
}
