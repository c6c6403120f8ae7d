import { type AnchorStyle, headingSlugger } from './heading-anchors.ts';
import type { Block } from './mdx-to-sections.ts';
import type { ParsedChunk } from './types.ts';

/** Sections longer than this are split at block (paragraph) boundaries; ~400 words fits embedding windows. */
export const MAX_CHUNK_WORDS = 400;
/**
 * Longest chunk in characters, whatever its words: a chunk is what a model is given, a search returns
 * and an MCP tool hands an agent, so a page of few but huge "words" (a base64 blob, a minified line) must
 * not make one of hundreds of kilobytes. No chunk of the shared corpora comes near it (the largest:
 * 16,042 characters, a reference table). A hard limit: see `withinCharLimit`.
 */
export const MAX_CHUNK_CHARS = 20_000;

export interface ChunkInput {
  title: string;
  description: string | null;
  blocks: Block[];
  /** How the site's framework makes heading ids (heading-anchors.ts); github-slugger's by default. */
  anchors?: AnchorStyle;
}

const wordCount = (text: string): number => {
  let count = 0;
  for (const part of text.split(/\s+/)) if (part !== '') count++;
  return count;
};

/**
 * A text's size against a budget of `max` words: its words, or its characters as a share of
 * `MAX_CHUNK_CHARS` when that is more (only for words far longer than prose has), so a chunk within
 * `max` is within both limits.
 */
const sizeOf = (text: string, max: number): number =>
  Math.max(wordCount(text), Math.ceil((text.length * max) / MAX_CHUNK_CHARS));

/** Tokens cut so that none is longer than a chunk may be. */
const boundedTokens = (line: string): string[] => {
  const out: string[] = [];
  for (const token of line.split(/\s+/)) {
    if (token === '') continue;
    for (let i = 0; i < token.length; i += MAX_CHUNK_CHARS) out.push(token.slice(i, i + MAX_CHUNK_CHARS));
  }
  return out;
};

const isFence = (line: string): RegExpExecArray | null => /^(`{3,}|~{3,})(.*)$/.exec(line);

/**
 * Splits one oversized block: at line boundaries (list items, table rows, code lines), re-fencing code so
 * every piece stays a valid fenced block; a single huge line falls back to word windows.
 */
const splitBlock = (text: string, max: number): string[] => {
  const lines = text.split('\n');
  const opener = isFence(lines[0] ?? '');
  const closer = lines[lines.length - 1] ?? '';
  const fenced = opener !== null && lines.length >= 2 && closer.startsWith(opener[1] ?? '```');
  const body = fenced ? lines.slice(1, -1) : lines;
  const pieces: string[] = [];
  let current: string[] = [];
  let words = 0;
  const flush = (): void => {
    if (current.length === 0) return;
    const joined = current.join('\n');
    pieces.push(fenced ? `${lines[0]}\n${joined}\n${closer}` : joined);
    current = [];
    words = 0;
  };
  for (const line of body) {
    const n = sizeOf(line, max);
    if (n > max) {
      flush();
      // Word windows, each within both limits.
      let window: string[] = [];
      let size = 0;
      for (const token of boundedTokens(line)) {
        const cost = sizeOf(token, max);
        if (window.length > 0 && size + cost > max) {
          current.push(window.join(' '));
          flush();
          window = [];
          size = 0;
        }
        window.push(token);
        size += cost;
      }
      if (window.length > 0) {
        current.push(window.join(' '));
        flush();
      }
      continue;
    }
    if (words + n > max && current.length > 0) flush();
    current.push(line);
    words += n;
  }
  flush();
  return pieces;
};

/**
 * `text` in pieces of at most `MAX_CHUNK_CHARS`, cut at the last white space before the limit (or at it,
 * in a run without any). Packing by size keeps nearly every chunk within the limit already; the joins
 * it does not count (spaces, blank lines) can take one a little past it, and the limit is a hard one.
 */
const withinCharLimit = (text: string): string[] => {
  if (text.length <= MAX_CHUNK_CHARS) return [text];
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > MAX_CHUNK_CHARS) {
    const window = rest.slice(0, MAX_CHUNK_CHARS + 1);
    const space = window.search(/\s\S*$/);
    let cut = space > 0 ? space : MAX_CHUNK_CHARS;
    // Never between the two halves of a character outside the Basic Multilingual Plane.
    if (/[\uD800-\uDBFF]/.test(rest.charAt(cut - 1))) cut--;
    const piece = rest.slice(0, cut).trimEnd();
    if (piece !== '') pieces.push(piece);
    rest = rest.slice(cut).trimStart();
  }
  if (rest !== '') pieces.push(rest);
  return pieces;
};

/** Packs blocks into chunks of at most `max` words without splitting a block unless it alone is too big. */
const pack = (parts: string[], max: number): string[] => {
  const chunks: string[] = [];
  let current: string[] = [];
  let words = 0;
  const flush = (): void => {
    if (current.length > 0) chunks.push(current.join('\n\n'));
    current = [];
    words = 0;
  };
  for (const part of parts) {
    const n = sizeOf(part, max);
    if (n > max) {
      flush();
      for (const piece of splitBlock(part, max)) chunks.push(piece);
      continue;
    }
    if (words + n > max) flush();
    current.push(part);
    words += n;
  }
  flush();
  return chunks;
};

const sameText = (a: string, b: string): boolean => a.trim().toLowerCase() === b.trim().toLowerCase();

interface Section {
  anchor: string | null;
  headings: string[];
  parts: string[];
}

/**
 * Cuts a page into chunks at H2/H3 (H1s other than the title too), with breadcrumbs and the anchor the
 * site's framework gives the heading. Every heading goes through one per-page slugger, in document order,
 * so repeated headings get the same suffixes (`-1`, or `_1` on MkDocs) as on the site even when they sit
 * inside a chunk (H4+).
 */
export const chunkPage = (input: ChunkInput, max = MAX_CHUNK_WORDS): ParsedChunk[] => {
  const slugger = headingSlugger(
    input.anchors,
    input.blocks.flatMap((block) => (block.kind === 'heading' && block.id !== undefined ? [block.id] : [])),
  );
  const intro: Section = { anchor: null, headings: [], parts: [] };
  if (input.description) intro.parts.push(input.description);
  const sections: Section[] = [intro];
  let current = intro;
  const trail: { depth: number; text: string }[] = [];
  let titleHeadingSeen = false;

  for (const block of input.blocks) {
    if (block.kind === 'text') {
      current.parts.push(block.text);
      continue;
    }
    const anchor = block.id === undefined ? slugger.slug(block.text) : slugger.explicit(block.id);
    // The page's own `# Title` repeats the title; it is not a section of the page.
    if (block.depth === 1 && !titleHeadingSeen && sameText(block.text, input.title)) {
      titleHeadingSeen = true;
      continue;
    }
    if (block.depth > 3) {
      current.parts.push(block.text);
      continue;
    }
    while (trail.length > 0 && (trail[trail.length - 1]?.depth ?? 0) >= block.depth) trail.pop();
    trail.push({ depth: block.depth, text: block.text });
    current = { anchor, headings: trail.map((t) => t.text), parts: [] };
    sections.push(current);
  }

  const chunks: ParsedChunk[] = [];
  for (const section of sections) {
    for (const packed of pack(section.parts, max))
      for (const text of withinCharLimit(packed))
        chunks.push({ anchor: section.anchor, headings: [...section.headings], text });
  }
  if (chunks.length === 0) {
    // Keep empty pages findable by name.
    const text = [input.title, input.description].filter((t): t is string => !!t).join('\n\n');
    chunks.push({ anchor: null, headings: [], text });
  }
  return chunks;
};
