import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { visit } from 'unist-util-visit';

/** The nodes a Markdown renderer would make live (links, images, definitions, raw HTML), each as `type url-or-html`. */
export function liveMarkup(markdown: string): string[] {
  const found: string[] = [];
  visit(unified().use(remarkParse).parse(markdown), (node) => {
    if (['link', 'image', 'definition', 'html', 'linkReference', 'imageReference'].includes(node.type))
      found.push(`${node.type} ${'url' in node ? node.url : 'value' in node ? node.value : ''}`);
  });
  return found;
}
