import type { Nodes, Parents, PhrasingContent, Root, RootContent } from 'mdast';
// Adds the directive nodes (Docusaurus admonitions) to mdast's node types.
import type {} from 'mdast-util-directive';
import type {
  MdxJsxAttribute,
  MdxJsxExpressionAttribute,
  MdxJsxFlowElement,
  MdxJsxTextElement,
} from 'mdast-util-mdx';
import { MAX_PAGE_EXPANDED_CHARS, MAX_SNIPPET_DEPTH } from './ingest-limits.ts';
import type { ImportScope, LoadedSnippet, ResolvedSnippets } from './snippets.ts';
import { STORED_CELL_SEPARATOR } from './table-cells.ts';

/** A page flattened into what chunking needs: headings and text blocks, in reading order. */
export type Block =
  /**
   * `id`: the heading's explicit id (`## Setup {#install}`), where the framework reads one
   * (heading-anchors.ts). `commentId`: the id an MDX comment at its end names (`{/* #install *\/}`),
   * which only Docusaurus reads.
   */
  | { kind: 'heading'; depth: number; text: string; id?: string; commentId?: string }
  | { kind: 'text'; text: string };

/**
 * Docusaurus' MDX comment heading id (its remark `headings` plugin): a heading whose last child is an
 * expression holding only a comment whose first word starts with `#`, `{/* #install *\/}`.
 */
const headingCommentId = (last: PhrasingContent | undefined): string | undefined => {
  if (last?.type !== 'mdxTextExpression') return undefined;
  const comment = /^\s*\/\*([\s\S]*?)\*\/\s*$/.exec(last.value);
  const first = comment?.[1]?.trim().split(' ')[0];
  return first?.startsWith('#') && first.length > 1 ? first.slice(1) : undefined;
};

export interface RenderOptions {
  snippets: ResolvedSnippets;
  /** Length of the page's own source: snippet inclusions add to it up to MAX_PAGE_EXPANDED_CHARS. */
  pageChars: number;
  /** Called once per snippet import cycle that was cut. */
  onCycle(chain: string[]): void;
  /** Called once per page for each snippet limit reached (ingest-limits.ts), with what was left out. */
  onLimit(message: string): void;
}

/** Elements whose content is never reader-visible text. */
const DROPPED_ELEMENTS = new Set([
  'script',
  'style',
  'svg',
  'iframe',
  'video',
  'audio',
  'img',
  'source',
  'Icon',
]);

/** String attributes that carry readable text (a Step's title, a Card's title, an Update's label …). */
const TEXT_ATTRIBUTES = ['title', 'label', 'description', 'caption', 'tip'];
/** Where API fields put the parameter name; `name` is the generic one. */
const FIELD_NAME_ATTRIBUTES = ['query', 'path', 'body', 'header', 'cookie', 'name'];

type JsxElement = MdxJsxFlowElement | MdxJsxTextElement;

const stringAttr = (
  attrs: (MdxJsxAttribute | MdxJsxExpressionAttribute)[],
  name: string,
): string | undefined => {
  for (const attr of attrs) {
    if (attr.type === 'mdxJsxAttribute' && attr.name === name && typeof attr.value === 'string')
      return attr.value;
  }
  return undefined;
};

const hasFlag = (attrs: (MdxJsxAttribute | MdxJsxExpressionAttribute)[], name: string): boolean =>
  attrs.some(
    (a) => a.type === 'mdxJsxAttribute' && a.name === name && (a.value === null || a.value === 'true'),
  );

/** `<ParamField query="limit" type="integer" required>` → `query limit (integer, required)`. */
export const attributeText = (element: JsxElement): string => {
  const name = element.name ?? '';
  // Lower-case names are HTML; their attributes (class, href, src …) are markup, not prose.
  if (!/^[A-Z]/.test(name)) return '';
  const attrs = element.attributes;
  const parts: string[] = [];
  for (const key of FIELD_NAME_ATTRIBUTES) {
    const value = stringAttr(attrs, key);
    if (value === undefined || value.trim() === '') continue;
    const details: string[] = [];
    const type = stringAttr(attrs, 'type');
    if (type) details.push(type);
    if (hasFlag(attrs, 'required')) details.push('required');
    const fallback = stringAttr(attrs, 'default');
    if (fallback) details.push(`default: ${fallback}`);
    const label = key === 'name' ? value : `${key} ${value}`;
    parts.push(details.length > 0 ? `${label} (${details.join(', ')})` : label);
    break;
  }
  for (const key of TEXT_ATTRIBUTES) {
    const value = stringAttr(attrs, key);
    if (value !== undefined && value.trim() !== '') parts.push(value.trim());
  }
  return parts.join(' — ');
};

/** Whether a component names an API field (`<ParamField body="fp">`, `<ResponseField name="id">`). */
const isField = (element: JsxElement): boolean =>
  /^[A-Z]/.test(element.name ?? '') &&
  FIELD_NAME_ATTRIBUTES.some((key) => (stringAttr(element.attributes, key) ?? '').trim() !== '');

/** A block of prose: not code, a list, a table or a quote, whose first line a label may lead. */
const isProse = (text: string): boolean => !/^(?:```|~~~|[-*+] |\d+\. |\||>)/.test(text);

const BLOCK_TYPES = new Set([
  'containerDirective',
  'leafDirective',
  'heading',
  'paragraph',
  'code',
  'list',
  'listItem',
  'blockquote',
  'table',
  'thematicBreak',
  'definition',
  'footnoteDefinition',
  'mdxJsxFlowElement',
  'mdxjsEsm',
  'mdxFlowExpression',
  'yaml',
  'toml',
  'html',
]);

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/**
 * Raw HTML only reaches us from `.md` files and the Markdown fallback. We want its text, not its markup:
 * scripts/styles go entirely, tags go, entities are decoded. The tag stripping is over HTML the Markdown
 * parser already isolated, not over the document.
 */
export const htmlToText = (html: string): string =>
  html
    .replace(/<!--[\s\S]*?(-->|$)/g, ' ')
    .replace(/<(script|style)\b[\s\S]*?(<\/\1\s*>|$)/gi, ' ')
    .replace(/<\/?(p|div|br|li|tr|h[1-6]|table|ul|ol|section|article|blockquote|pre)\b[^>]*>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, entity: string) => {
      if (entity.startsWith('#x') || entity.startsWith('#X'))
        return safeCodePoint(Number.parseInt(entity.slice(2), 16), whole);
      if (entity.startsWith('#')) return safeCodePoint(Number.parseInt(entity.slice(1), 10), whole);
      // Own keys only: `&constructor;` must not find Object.prototype's.
      const name = entity.toLowerCase();
      return Object.hasOwn(ENTITIES, name) ? (ENTITIES[name] ?? whole) : whole;
    });

const safeCodePoint = (code: number, fallback: string): string =>
  Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : fallback;

/** A fence's title in its info string: `[label]` first (VitePress), or `title="…"` (Docusaurus). */
const fenceTitle = (meta: string | null | undefined): string | null => {
  if (!meta) return null;
  const title = /^\s*\[([^\]\n]+)\]/.exec(meta)?.[1] ?? /\btitle=(["'])(.+?)\1/.exec(meta)?.[2];
  return title?.trim() || null;
};

const fence = (lang: string | null | undefined, value: string): string => {
  let ticks = '```';
  while (value.includes(ticks)) ticks += '`';
  return `${ticks}${lang ?? ''}\n${value}\n${ticks}`;
};

/** A newline inside a text node (a soft line break), until `collapse` decides what it is. */
const SOFT_BREAK = '\u2028';
/** Lines a hard-wrapping editor leaves: long enough to have been wrapped, short of any wrap width. */
const WRAPPED_LINE = { min: 40, max: 120 } as const;

/**
 * Soft line breaks after a line as long as wrapped prose is (and not ending in a colon, which
 * introduces what follows, unless the colon is inside parentheses the line has not closed yet: "(by
 * their words:" goes on in the same sentence) are where an editor wrapped a sentence: they become spaces. Kept as
 * newlines, the answerer took each wrapped line for a block of its own and quoted sentences cut in
 * half. The others stay newlines: in text scraped from web pages they part things that are not one
 * sentence (a label, then a code sample flattened into the paragraph).
 */
const unwrap = (text: string): string => {
  if (!text.includes(SOFT_BREAK)) return text;
  const parts = text.split(SOFT_BREAK);
  let out = parts[0] ?? '';
  // Where the line before the next soft break starts: after the last break of either kind.
  let lineStart = out.lastIndexOf('\n') + 1;
  for (let i = 1; i < parts.length; i++) {
    const previous = out.slice(lineStart).trim();
    const wrapped =
      previous.length >= WRAPPED_LINE.min &&
      previous.length <= WRAPPED_LINE.max &&
      (!previous.endsWith(':') || insideParentheses(out.slice(out.lastIndexOf('\n') + 1)));
    out += wrapped ? ' ' : '\n';
    const part = parts[i] ?? '';
    const hard = part.lastIndexOf('\n');
    lineStart = hard === -1 ? out.length : out.length + hard + 1;
    out += part;
  }
  return out;
};

/** Whether `line` (the joined lines of one paragraph so far) ends inside parentheses it opened. */
const insideParentheses = (line: string): boolean => {
  let depth = 0;
  for (const char of line) {
    if (char === '(') depth++;
    else if (char === ')' && depth > 0) depth--;
  }
  return depth > 0;
};

const collapse = (text: string): string =>
  unwrap(text)
    .replace(/[ \t\f\v\u00a0]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();

class Renderer {
  private readonly stack: string[] = [];
  private readonly blocks: Block[] = [];
  private expanded: number;
  private readonly limitsReached = new Set<'depth' | 'expansion'>();

  constructor(private readonly options: RenderOptions) {
    this.expanded = options.pageChars;
  }

  /** Whether `snippet` may be inlined here; says once per page and limit why not. */
  private withinLimits(snippet: LoadedSnippet): boolean {
    if (this.stack.length >= MAX_SNIPPET_DEPTH) {
      this.reach(
        'depth',
        `snippets nested deeper than ${MAX_SNIPPET_DEPTH} (MAX_SNIPPET_DEPTH); ${snippet.file} and any deeper not inlined`,
      );
      return false;
    }
    if (this.expanded + snippet.source.length > MAX_PAGE_EXPANDED_CHARS) {
      this.reach(
        'expansion',
        `page expands past ${MAX_PAGE_EXPANDED_CHARS} characters with its snippets (MAX_PAGE_EXPANDED_CHARS); ` +
          `${snippet.file} and later snippets not inlined`,
      );
      return false;
    }
    this.expanded += snippet.source.length;
    return true;
  }

  private reach(limit: 'depth' | 'expansion', message: string): void {
    if (this.limitsReached.has(limit)) return;
    this.limitsReached.add(limit);
    this.options.onLimit(message);
  }

  render(tree: Root): Block[] {
    this.flow(tree.children, this.options.snippets.scope);
    return this.blocks;
  }

  private push(text: string): void {
    const clean = collapse(text);
    if (clean !== '') this.blocks.push({ kind: 'text', text: clean });
  }

  /** For text assembled from already-clean blocks (lists), where code indentation must survive. */
  private pushAssembled(text: string): void {
    const clean = text.replace(/\n{3,}/g, '\n\n').trim();
    if (clean !== '') this.blocks.push({ kind: 'text', text: clean });
  }

  /** Renders block content; runs of phrasing nodes (JSX children often are) become one paragraph. */
  private flow(nodes: readonly (RootContent | PhrasingContent)[], scope: ImportScope): void {
    let inline = '';
    const flush = (): void => {
      this.push(inline);
      inline = '';
    };
    for (const node of nodes) {
      if (!BLOCK_TYPES.has(node.type)) {
        inline += this.inline([node as PhrasingContent], scope);
        continue;
      }
      flush();
      this.block(node as RootContent, scope);
    }
    flush();
  }

  private block(node: RootContent, scope: ImportScope): void {
    switch (node.type) {
      case 'heading': {
        const text = collapse(this.inline(node.children, scope)).replace(/\n/g, ' ');
        const commentId = headingCommentId(node.children[node.children.length - 1]);
        if (text !== '')
          this.blocks.push({ kind: 'heading', depth: node.depth, text, ...(commentId ? { commentId } : {}) });
        return;
      }
      case 'paragraph':
        this.push(this.inline(node.children, scope));
        return;
      case 'code': {
        if (node.value.trim() === '') return;
        // The title a site shows above the code, as a tab's label is kept: a VitePress code group's tab
        // (`sh [npm]`) or Docusaurus' `title="docusaurus.config.js"`. Without it, a group's fences read
        // as the same command written three times.
        const title = fenceTitle(node.meta);
        if (title !== null) this.push(title);
        this.blocks.push({ kind: 'text', text: fence(node.lang, node.value) });
        return;
      }
      case 'list':
        this.pushAssembled(this.listText(node, scope));
        return;
      case 'table':
        // One line a row, its cells joined by STORED_CELL_SEPARATOR, which pages/stored-tables.ts splits
        // to write the table back: a line break in a cell (`<br>`) would end the row there, and a pipe in
        // one (`string \| null`) would read as one more cell, and either way the table is lost.
        this.push(
          node.children
            .map((row) =>
              row.children
                .map((cell) =>
                  collapse(this.inline(cell.children, scope)).replace(/\n/g, ' ').replaceAll('|', '\\|'),
                )
                .join(STORED_CELL_SEPARATOR),
            )
            .join('\n'),
        );
        return;
      case 'blockquote':
      case 'footnoteDefinition':
      // A Docusaurus admonition (`:::tip[Title]` … `:::`): its label, then its body.
      case 'containerDirective':
        this.flow(node.children, scope);
        return;
      case 'leafDirective':
        this.push(this.inline(node.children, scope));
        return;
      case 'html':
        this.push(htmlToText(node.value));
        return;
      case 'mdxJsxFlowElement':
        this.element(node, scope, 'flow');
        return;
      default:
        // ESM, `{expressions}`, front matter, definitions, thematic breaks: nothing a reader sees as text.
        return;
    }
  }

  /** Lists are one block (one line per item) so the chunker can split long ones at item boundaries. */
  private listText(list: Extract<Nodes, { type: 'list' }>, scope: ImportScope): string {
    const lines: string[] = [];
    let n = list.start ?? 1;
    for (const item of list.children) {
      const marker = list.ordered ? `${n++}.` : '-';
      const inner = this.capture(() => this.flow(item.children, scope));
      const text = inner.map((b) => b.text).join('\n');
      if (text !== '') lines.push(`${marker} ${text.replace(/\n/g, '\n  ')}`);
    }
    return lines.join('\n');
  }

  /** Runs `fn` with block output redirected, returning what it produced. */
  private capture(fn: () => void): Block[] {
    const mark = this.blocks.length;
    fn();
    return this.blocks.splice(mark);
  }

  private element(node: JsxElement, scope: ImportScope, mode: 'flow' | 'inline'): string {
    const name = node.name;
    if (name !== null && DROPPED_ELEMENTS.has(name)) return '';
    // A line break, as `<br>` in Markdown's HTML is (htmlToText): not nothing, which glues "one<br/>two".
    if (name === 'br') return mode === 'inline' ? '\n' : '';
    if (name !== null && scope.has(name)) return this.snippet(node, scope.get(name) ?? null, scope, mode);
    return this.component(node, scope, mode);
  }

  /** A component that is no snippet: its text attributes (a tab's label, a card's title), then its children. */
  private component(node: JsxElement, scope: ImportScope, mode: 'flow' | 'inline'): string {
    const label = attributeText(node);
    if (mode === 'inline') {
      // One-line components (`<Accordion title="Why?">Because.</Accordion>`) land inside paragraphs.
      const inner = this.inline(node.children as PhrasingContent[], scope);
      if (label === '') return inner;
      return inner.trim() === '' ? ` ${label} ` : ` ${label}: ${inner} `;
    }
    if (label !== '' && isField(node)) {
      // A field's name, type and flags start its description's first paragraph ("body threadId (string):
      // Thread to continue."), as they do on one line: a quoted description says which field it describes.
      const inner = this.capture(() => this.flow(node.children, scope));
      const first = inner[0];
      if (first?.kind === 'text' && isProse(first.text)) {
        this.blocks.push({ kind: 'text', text: `${collapse(label)}: ${first.text}` }, ...inner.slice(1));
        return '';
      }
      this.push(label);
      this.blocks.push(...inner);
      return '';
    }
    if (label !== '') this.push(label);
    this.flow(node.children, scope);
    return '';
  }

  private snippet(
    node: JsxElement,
    file: string | null,
    scope: ImportScope,
    mode: 'flow' | 'inline',
  ): string {
    const snippet = file === null ? undefined : this.options.snippets.byFile.get(file);
    // A React component (`@theme/TabItem`, a .jsx file) or an unresolved import: its children and text
    // attributes are still the author's text.
    if (!snippet) return this.component(node, scope, mode);
    if (this.stack.includes(snippet.file)) {
      this.options.onCycle([...this.stack, snippet.file]);
      return '';
    }
    if (!this.withinLimits(snippet)) return '';
    this.stack.push(snippet.file);
    try {
      if (mode === 'flow') {
        this.flow(snippet.tree.children, snippet.imports);
        return '';
      }
      const inner = this.capture(() => this.flow(snippet.tree.children, snippet.imports));
      return inner.map((b) => b.text).join(' ');
    } finally {
      this.stack.pop();
    }
  }

  private inline(nodes: readonly PhrasingContent[], scope: ImportScope): string {
    let out = '';
    for (const node of nodes) {
      switch (node.type) {
        case 'text':
          // Settled by `collapse`, once the whole line before it is known.
          out += node.value.replaceAll(SOFT_BREAK, ' ').replaceAll('\n', SOFT_BREAK);
          break;
        case 'inlineCode':
          // CommonMark turns a line ending inside a code span into a space: a span wrapped over two lines
          // of the source is one line of code, not a block break in the middle of a sentence.
          out += `\`${node.value.replace(/\r\n?|\n/g, ' ')}\``;
          break;
        case 'break':
          out += '\n';
          break;
        case 'html':
          out += htmlToText(node.value);
          break;
        case 'mdxJsxTextElement':
          out += this.element(node, scope, 'inline');
          break;
        case 'textDirective': {
          // Docusaurus parses `:name` in prose as a directive it does not know and prints it back as
          // written ("Note:this", "ratio 4:3px"): so does Docent.
          const label = this.inline(node.children, scope);
          out += `:${node.name}${node.children.length > 0 ? `[${label}]` : ''}`;
          break;
        }
        case 'image':
        case 'imageReference':
        case 'footnoteReference':
        case 'mdxTextExpression':
          break;
        default:
          if ('children' in node) out += this.inline((node as Parents).children as PhrasingContent[], scope);
          else {
            const value = (node as { value?: unknown }).value;
            if (typeof value === 'string') out += value;
          }
      }
    }
    return out;
  }
}

/** Reduces an MDX/Markdown tree (with snippets inlined) to headings and text blocks. */
export const treeToBlocks = (tree: Root, options: RenderOptions): Block[] =>
  new Renderer(options).render(tree);
