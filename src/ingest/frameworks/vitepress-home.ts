import { type Block, htmlToText } from '../mdx-to-sections.ts';

const text = (value: unknown): string | null => {
  if (typeof value !== 'string') return null;
  // VitePress renders these fields as HTML (`v-html`): `Fast<br>and small` is two words, not a tag.
  const plain = htmlToText(value).replace(/\s+/g, ' ').trim();
  return plain === '' ? null : plain;
};

/**
 * VitePress' home layout (`layout: home`, the page `vitepress init` writes) shows its hero and feature
 * cards from the front matter, and the Markdown body, usually empty, below them. Without this the page is
 * indexed as its file name with no text. As VitePress 1.6.4 renders it: `hero.name` is the big heading,
 * then `hero.text` and `hero.tagline`; each feature is its `title` and `details`. Action buttons are
 * links, not text. `null` when the page has another layout.
 */
export function vitePressHome(
  frontMatter: Record<string, unknown>,
): { title: string | null; blocks: Block[] } | null {
  if (frontMatter.layout !== 'home') return null;
  const hero =
    typeof frontMatter.hero === 'object' && frontMatter.hero !== null
      ? (frontMatter.hero as Record<string, unknown>)
      : {};
  const blocks: Block[] = [];
  const intro = [text(hero.text), text(hero.tagline)].filter((t): t is string => t !== null).join('\n');
  if (intro !== '') blocks.push({ kind: 'text', text: intro });
  const features = Array.isArray(frontMatter.features) ? frontMatter.features : [];
  for (const feature of features) {
    if (typeof feature !== 'object' || feature === null) continue;
    const f = feature as Record<string, unknown>;
    const line = [text(f.title), text(f.details)].filter((t): t is string => t !== null).join(': ');
    if (line !== '') blocks.push({ kind: 'text', text: line });
  }
  return { title: text(hero.name) ?? text(hero.text), blocks };
}
