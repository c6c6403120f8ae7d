import { FenceTracker } from '../fenced-code.ts';

/**
 * Docs frameworks' own block syntax, rewritten before a page is parsed as what the framework reads it
 * as. Every line stays on its line, so warnings keep their line numbers, and fenced code is left alone.
 */

/** `!!! type "Title"`, `??? type`, `???+ type inline end "Title"`; `=== "Tab"`, `===! "Tab"`, `===+ "Tab"`. */
const MKDOCS_MARKER =
  /^( {0,3})(?:(?:!!!|\?\?\?\+?)[ \t]+([\w-]+)(?:[ \t]+[\w-]+)*(?:[ \t]+"([^"]*)")?|===[!+]?[ \t]+"([^"]*)")[ \t]*$/;
/** Nesting deeper than this is left as it is (the body stays indented): no real page nests so deep. */
const MAX_MKDOCS_DEPTH = 16;
/**
 * Docusaurus' older admonition title, `:::tip Title` (a `\r` kept for CRLF files). Linear: the title ends
 * at its last non-space character, with no lazy match that backtracks over a long line of spaces.
 */
const LEGACY_ADMONITION_TITLE = /^([ \t]*:::+[ \t]*[\w-]+)[ \t]+([^\s[{](?:.*\S)?)[ \t]*(\r?)$/;
/**
 * Docusaurus reads `:::tip Title` (its older admonition title) as `:::tip[Title]`, the remark-directive
 * label it parses today: rewritten so.
 */
export function rewriteDocusaurusAdmonitionTitles(source: string): string {
  if (!source.includes(':::')) return source;
  const fences = new FenceTracker();
  return source
    .split('\n')
    .map((line) => (fences.inFence(line) ? line : line.replace(LEGACY_ADMONITION_TITLE, '$1[$2]$3')))
    .join('\n');
}

/**
 * Docusaurus' explicit heading ids (`## Setup {#install}`): MDX would read `{#install}` as a JavaScript
 * expression and fail, so Docusaurus escapes the first `{#` of every heading line (its
 * `escapeMarkdownHeadingIds`) before parsing; rewritten the same way, outside fenced code. In Markdown the
 * escape reads as the `{` it was.
 */
export function escapeDocusaurusHeadingIds(source: string): string {
  if (!source.includes('{#')) return source;
  const fences = new FenceTracker();
  return source
    .split('\n')
    .map((line) =>
      fences.inFence(line) || !/^#{1,6}(?!#)/.test(line) ? line : line.replace(/(?<!\\)\{#/, '\\{#'),
    )
    .join('\n');
}

/**
 * Material for MkDocs writes admonitions (`!!! warning "Windows"`, collapsible `???` and `???+`) and
 * content tabs (`=== "Linux"`) as a marker line and a body indented four spaces: Python-Markdown
 * extensions that no JavaScript parser reads, so a CommonMark parser takes the marker for text and the
 * body for an indented code block. Rewritten as the CommonMark they mean: the marker becomes its title
 * ("Windows:", or the admonition's type when it has no title), the body is de-indented, and blocks nested
 * in a body are rewritten the same way.
 */
export function rewriteMkDocsBlocks(source: string): string {
  if (!source.includes('!!!') && !source.includes('???') && !source.includes('===')) return source;
  return rewriteMkDocsLines(source.split('\n'), 0).join('\n');
}

/**
 * The containers VitePress registers with markdown-it-container (its `containers.ts`, 1.x): any other
 * name after `:::` is no container, and the line stays text.
 */
const VITEPRESS_CONTAINER =
  /^([ \t]*)(:{3,})[ \t]*(tip|info|warning|danger|details|raw|v-pre|code-group)(?![\w-])[ \t]*(.*?)[ \t]*(\r?)$/;
const VITEPRESS_CLOSE = /^[ \t]*(:{3,})[ \t]*\r?$/;
/** A GitHub-style alert's first line, `> [!TIP]` or `> [!WARNING] Title` (VitePress' `githubAlerts`). */
const VITEPRESS_ALERT = /^([ \t]*>[ \t]?)\[!(note|tip|important|warning|caution)\][ \t]*(.*?)[ \t]*(\r?)$/i;
/** The table of contents marker, which VitePress replaces with the page's headings. */
const VITEPRESS_TOC = /^[ \t]*\[\[toc\]\][ \t]*(\r?)$/i;
/** Containers whose title VitePress shows: the others only wrap (code tabs, raw HTML, no Vue). */
const VITEPRESS_TITLED = new Set(['tip', 'info', 'warning', 'danger', 'details']);

/**
 * VitePress' custom containers (`::: tip Title` … `:::`, `::: details`, `::: code-group`) are
 * markdown-it plugins no CommonMark parser reads: left as they are, `:::` and the marker line reach
 * answers as text, and the closing `:::` joins the paragraph above it. Rewritten as what VitePress shows:
 * the opening line becomes its title ("Title:", or the type's name when it has none; nothing for the
 * untitled wrappers), the closing line a blank one, so the body stays its own paragraphs. A trailing
 * attribute list (`{open}`) is markdown-it-attrs', not the title's. A GitHub-style alert's `[!TIP]`
 * becomes its title the same way, and a `[[toc]]` line, a list of the headings, nothing.
 */
export function rewriteVitePressBlocks(source: string): string {
  if (!/:::|\[!|\[\[toc\]\]/i.test(source)) return source;
  const fences = new FenceTracker();
  // The colons of each open container: a closing line needs at least as many (markdown-it-container).
  const open: number[] = [];
  return source
    .split('\n')
    .map((line) => {
      if (fences.inFence(line)) return line;
      const toc = VITEPRESS_TOC.exec(line);
      if (toc !== null) return toc[1] ?? '';
      const alert = VITEPRESS_ALERT.exec(line);
      if (alert !== null) {
        const [, quote = '', type = '', title = '', cr = ''] = alert;
        return `${quote}${title || type.charAt(0).toUpperCase() + type.slice(1).toLowerCase()}:${cr}`;
      }
      const opening = VITEPRESS_CONTAINER.exec(line);
      if (opening !== null) {
        const [, indent = '', colons = '', type = '', rest = '', cr = ''] = opening;
        open.push(colons.length);
        if (!VITEPRESS_TITLED.has(type)) return cr;
        const title = rest.replace(/[ \t]*\{[^{}]*\}$/, '') || type.charAt(0).toUpperCase() + type.slice(1);
        return `${indent}${title}:${cr}`;
      }
      const closing = VITEPRESS_CLOSE.exec(line)?.[1];
      const top = open.at(-1);
      if (closing !== undefined && top !== undefined && closing.length >= top) {
        open.pop();
        return line.endsWith('\r') ? '\r' : '';
      }
      return line;
    })
    .join('\n');
}

/** Python-Markdown reads a tab in a line's indentation as four spaces. */
const expandIndent = (line: string): string => {
  const indent = /^[ \t]*/.exec(line)?.[0] ?? '';
  return indent.includes('\t') ? indent.replace(/\t/g, '    ') + line.slice(indent.length) : line;
};

function rewriteMkDocsLines(written: readonly string[], depth: number): string[] {
  const lines = written.map(expandIndent);
  const out: string[] = [];
  const fences = new FenceTracker();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const marker =
      fences.inFence(line) || depth >= MAX_MKDOCS_DEPTH ? null : MKDOCS_MARKER.exec(line.replace(/\r$/, ''));
    if (marker === null) {
      out.push(line);
      continue;
    }
    const indent = (marker[1] as string).length;
    const inner = ' '.repeat(indent + 4);
    // The body: the lines indented past the marker, and blank lines between them.
    let end = i + 1;
    while (end < lines.length) {
      const next = lines[end] as string;
      if (next.trim() !== '' && !next.startsWith(inner)) break;
      end++;
    }
    while (end > i + 1 && (lines[end - 1] as string).trim() === '') end--;
    const type = marker[2];
    const title = (
      marker[4] ??
      marker[3] ??
      (type ? type.charAt(0).toUpperCase() + type.slice(1) : '')
    ).trim();
    // A title ending in a colon stays a line of its own (the chunker keeps that break), and CommonMark
    // lets a code fence or a list start right after it.
    out.push(title === '' ? '' : `${' '.repeat(indent)}${title}:`);
    const body = lines
      .slice(i + 1, end)
      .map((l) => (l.trim() === '' ? '' : l.slice(0, indent) + l.slice(indent + 4)));
    out.push(...rewriteMkDocsLines(body, depth + 1));
    i = end - 1;
  }
  return out;
}
