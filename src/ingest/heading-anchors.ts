// VitePress' own default for heading ids.
import { slugify as vitepressSlug } from '@mdit-vue/shared';
import GithubSlugger from 'github-slugger';
import type { Block } from './mdx-to-sections.ts';

/**
 * How the site's framework turns a heading into its `id`, so a citation's `#anchor` is the one the
 * published page has:
 *
 * - `github`: github-slugger, as GitHub and Mintlify slug headings; a repeated slug gets `-1`, `-2`…
 * - `starlight`: github-slugger, then one trailing `-` dropped, as Astro 5 and older's
 *   `rehypeHeadingIds` does (`Release notes 🎉` → `release-notes`, not `release-notes-`); Astro 6
 *   keeps it (`github`).
 * - `docusaurus`: github-slugger too, and an explicit id written at the end of the heading
 *   (`## Setup {#install}`) is the heading's id, out of its text. `docusaurus-cased`: the same with
 *   `markdown.anchors.maintainCase`, where slugs keep the heading's case (`Hello-World`).
 * - `mkdocs`: Python-Markdown's `toc` extension, which MkDocs always loads, with its default `slugify`:
 *   accents folded and other non-ASCII letters dropped (`Émojis` → `emojis`), punctuation dropped, runs of
 *   spaces and hyphens made one hyphen; a repeated or empty slug gets `_1`, `_2`…
 * - `mkdocs-attr-list`: the same, on a site that enables the `attr_list` extension, which reads an
 *   attribute list at the end of a heading (`## Setup {#install}`, `## Setup { #install .new }`): its
 *   `#id` is the heading's id, and the list is no part of the heading's text.
 * - `mkdocs-emoji`, `mkdocs-attr-list-emoji`: the same, on a site that enables `pymdownx.emoji`, which
 *   makes emoji shortcodes (`:rocket:`, `:material-cog:`) icons with no text: they are no part of the id.
 *   Without it they are text (`## Features :rocket:` is `#features-rocket`).
 * - `vitepress`: VitePress' markdown-it-anchor with @mdit-vue's `slugify`: accents folded, runs of
 *   punctuation and spaces made one hyphen, an `_` before a leading digit; repeats get `-1`, `-2`…
 *   An attribute list at the end of a heading (markdown-it-attrs: `{#id}`, `{ #id .new }`, `{.new}`)
 *   leaves its text, and its `#id` is the heading's id.
 */
export type AnchorStyle =
  | 'github'
  | 'starlight'
  | 'docusaurus'
  | 'docusaurus-cased'
  | 'mkdocs'
  | 'mkdocs-attr-list'
  | 'mkdocs-emoji'
  | 'mkdocs-attr-list-emoji'
  | 'vitepress';

const isDocusaurus = (style: AnchorStyle | undefined): boolean =>
  style === 'docusaurus' || style === 'docusaurus-cased';
const readsAttrList = (style: AnchorStyle | undefined): boolean =>
  style === 'mkdocs-attr-list' || style === 'mkdocs-attr-list-emoji';

export interface HeadingSlugger {
  /** The id of the next heading of the page, in document order. */
  slug(text: string): string;
  /** The id of a heading that names its own (`{#id}`): that id, counted as taken where the framework does. */
  explicit(id: string): string;
}

/**
 * Docusaurus' `parseMarkdownHeadingId` (@docusaurus/utils): a heading whose text ends in `{#id}` has
 * that id; its text is what comes before. VitePress' markdown-it-attrs reads the same trailing `{#id}`.
 */
const EXPLICIT_ID = /\s*\{#((?:.(?!\{#|\}))*.)\}$/;

/** Python-Markdown's `attr_list` on a heading: `HEADER_RE`, a space, then `{…}` or `{:…}` at its end. */
const ATTR_LIST = / +\{:?([^}\n]*)\} *$/;

/** Heading blocks with their explicit `{#id}` taken out of the text, for frameworks that read one. */
export const withExplicitIds = (blocks: Block[], style: AnchorStyle | undefined): Block[] => {
  if (!isDocusaurus(style) && style !== 'vitepress' && !readsAttrList(style)) return blocks;
  return blocks.map((block) => {
    if (block.kind !== 'heading') return block;
    if (readsAttrList(style)) {
      const list = ATTR_LIST.exec(block.text);
      if (!list) return block;
      const text = block.text.slice(0, list.index);
      // The last `#id` of the list wins, as attr_list sets the attribute once per token.
      const ids = [...(list[1] ?? '').matchAll(/(?:^|\s)#([^\s#.=]+)/g)].map((m) => m[1] as string);
      const id = ids[ids.length - 1];
      if (text.trim() === '') return block;
      return id === undefined ? { ...block, text } : { ...block, text, id };
    }
    if (style === 'vitepress') {
      const attrs = markdownItAttrs(block.text);
      if (!attrs || attrs.text.trim() === '') return block;
      return attrs.id === undefined
        ? { ...block, text: attrs.text }
        : { ...block, text: attrs.text, id: attrs.id };
    }
    // Docusaurus reads `{/* #id */}` before `{#id}` (its remark `headings` plugin).
    if (isDocusaurus(style) && block.commentId !== undefined) return { ...block, id: block.commentId };
    const found = EXPLICIT_ID.exec(block.text);
    if (!found?.[1]) return block;
    const text = block.text.slice(0, found.index);
    return text.trim() === '' ? block : { ...block, text, id: found[1] };
  });
};

/**
 * markdown-it-attrs (VitePress) on a heading: an attribute list `{…}` ending its text (`hasDelimiters`
 * 'end': from the last `{`, the first `}` ends the text, `{b}` at least, `{.b}` or `{#b}` at least) is
 * taken out of the text whatever it holds (`{.new}`, `{ #install }`, `{#install .new}`), with one space
 * before it; the first `#id` (or `id=`) is the heading's id, as markdown-it-anchor reads the first.
 * Its `getAttrs`: pairs parted by spaces, `.class`, `#id`, `key=value`, `key="quoted value"`.
 */
const markdownItAttrs = (heading: string): { text: string; id: string | undefined } | undefined => {
  const start = heading.lastIndexOf('{');
  if (start === -1 || !heading.endsWith('}') || heading.indexOf('}', start + 2) !== heading.length - 1)
    return undefined;
  const inside = heading.slice(start + 1, -1);
  if (inside === '' || (/^[.#]/.test(inside) && inside.length < 2)) return undefined;
  const pairs: [string, string][] = [];
  let key = '';
  let value = '';
  let parsingKey = true;
  let quoted = false;
  for (let i = 0; i < inside.length; i++) {
    const char = inside[i] as string;
    if (char === '=' && parsingKey) {
      parsingKey = false;
    } else if (char === '.' && key === '') {
      key = inside[i + 1] === '.' ? 'css-module' : 'class';
      if (key === 'css-module') i++;
      parsingKey = false;
    } else if (char === '#' && key === '') {
      key = 'id';
      parsingKey = false;
    } else if (char === '"' && value === '' && !quoted) {
      quoted = true;
    } else if (char === '"' && quoted) {
      quoted = false;
    } else if (char === ' ' && !quoted) {
      if (key !== '') pairs.push([key, value]);
      key = '';
      value = '';
      parsingKey = true;
    } else if (parsingKey) {
      if (!/[\t\n\f />"'=]/.test(char)) key += char;
    } else value += char;
  }
  if (key !== '') pairs.push([key, value]);
  const before = heading.slice(0, start);
  const id = pairs.find(([name, given]) => name === 'id' && given !== '')?.[1];
  return { text: before.endsWith(' ') ? before.slice(0, -1) : before, id };
};

/** Python-Markdown's `markdown.extensions.toc.slugify(value, '-')` (not its `unicode` variant). */
export const pythonMarkdownSlug = (text: string): string =>
  text
    .normalize('NFKD')
    // `.encode('ascii', 'ignore')` (UTF-16 halves included)
    .replace(/[\u0080-\uffff]/g, '')
    .replace(/[^\w\s-]/g, '')
    .trim()
    .toLowerCase()
    .replace(/[-\s]+/g, '-');

/** Python-Markdown's `toc.unique`: `_1` on a repeat (or an empty id), `x_2` after `x_1`. */
const pythonMarkdownUnique = (id: string, used: Set<string>): string => {
  let out = id;
  while (out === '' || used.has(out)) {
    const counted = /^(.*)_([0-9]+)$/.exec(out);
    out = counted ? `${counted[1]}_${Number(counted[2]) + 1}` : `${out}_1`;
  }
  used.add(out);
  return out;
};

/** markdown-it-anchor's `uniqueSlug` (start index 1): `x-1`, `x-2`… on repeats. */
const markdownItUnique = (slug: string, used: Set<string>): string => {
  let out = slug;
  let i = 1;
  while (used.has(out)) out = `${slug}-${i++}`;
  used.add(out);
  return out;
};

/**
 * A slugger for one page: ids are unique within it, as each framework makes them. `explicitIds`: the
 * page's explicit heading ids, which Python-Markdown's toc counts as taken before it makes any id.
 */
export const headingSlugger = (
  style: AnchorStyle = 'github',
  explicitIds: Iterable<string> = [],
): HeadingSlugger => {
  if (style === 'starlight') {
    const slugger = new GithubSlugger();
    // Astro counts the slug before it drops the hyphen, as here.
    return {
      slug: (text) => {
        const slug = slugger.slug(text);
        return slug.endsWith('-') ? slug.slice(0, -1) : slug;
      },
      explicit: (id) => id,
    };
  }
  if (style === 'github' || isDocusaurus(style)) {
    const slugger = new GithubSlugger();
    const maintainCase = style === 'docusaurus-cased';
    // Docusaurus' remark `headings` plugin takes an explicit id as it is, without telling its slugger.
    return { slug: (text) => slugger.slug(text, maintainCase), explicit: (id) => id };
  }
  const used = new Set<string>();
  const explicit = (id: string): string => {
    used.add(id);
    return id;
  };
  if (style.startsWith('mkdocs')) {
    for (const id of explicitIds) used.add(id);
    // Shortcodes are text but where pymdownx.emoji makes them icons.
    const emoji = style.endsWith('-emoji');
    return {
      slug: (text) =>
        pythonMarkdownUnique(pythonMarkdownSlug(emoji ? withoutEmojiShortcodes(text) : text), used),
      explicit,
    };
  }
  return { slug: (text) => markdownItUnique(vitepressSlug(withoutEmojiShortcodes(text)), used), explicit };
};

/**
 * A heading's text without its emoji shortcodes (`:rocket:`, `:material-cog:`, `:+1:`): VitePress'
 * markdown-it-emoji turns them into emoji tokens its anchor leaves out, and Material for MkDocs'
 * pymdownx.emoji into images or icons, which have no text for toc's slugify. Only names with a letter
 * or `+`, so that `1:2:3` stays as it is.
 */
const withoutEmojiShortcodes = (text: string): string =>
  text.includes(':') ? text.replace(/:(?=[\w+-]*[a-z+])[\w+-]+:/gi, '') : text;
