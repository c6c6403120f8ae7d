import path from 'node:path';
import { type ContainedFolder, MAX_PAGE_FILE_BYTES } from './contained-file.ts';
import { includedFiles } from './frameworks/vitepress-includes.ts';
import { MAX_SNIPPET_DEPTH } from './ingest-limits.ts';

/** `import` statements scanned in one file; a file with more is left to the parser (no fast reuse). */
const MAX_SCANNED_IMPORTS = 200;
/** Characters one import statement may span (`import {\n A,\n B\n} from '…'`). */
const MAX_IMPORT_CHARS = 2_000;
/** Files one page's imports may reach before the scan gives up and the page is parsed. */
const MAX_CLOSURE_FILES = 500;

const CODE_EXTENSIONS = /\.(jsx|js|tsx|ts|mjs|cjs|json)$/i;

/**
 * The Markdown files an ESM `import` of `source` (a page or snippet) may name, found by scanning the text,
 * not parsing it, in the order written; null for an import that names a missing file (the parser warns
 * about it). It errs on the side of more: every local `.md`/`.mdx` import counts, named or default,
 * used or not, so that a page's content hash built over these files changes whenever anything it
 * renders changes. Null when the text has more imports than are scanned. With `includeRoot` (a
 * VitePress site's `srcDir`), the files its `<!--@include: …-->` directives name follow, of any type
 * (vitepress-includes.ts); one leading out of the folder is null, as the expansion warns about it.
 */
export const scanImports = (
  fromFile: string,
  source: string,
  files: ReadonlySet<string>,
  includeRoot: string | null = null,
): (string | null)[] | null => {
  const found: (string | null)[] = [];
  if (includeRoot !== null) found.push(...includedFiles(fromFile, source, includeRoot));
  // An included code file (`<!--@include: ./example.ts#setup-->`) has ESM imports of its own, not MDX's.
  if (!/\.(md|mdx)$/i.test(fromFile)) return found;
  let count = 0;
  const fences = fencedRanges(source);
  // MDX reads ESM only at the start of a line.
  const starts = /^import\b/gm;
  for (let match = starts.exec(source); match !== null; match = starts.exec(source)) {
    if (++count > MAX_SCANNED_IMPORTS) return null;
    const statement = source.slice(match.index, match.index + MAX_IMPORT_CHARS);
    const target = /^import\b(?:[^;'"]*?\bfrom\s*)?(['"])([^'"\n]*)\1/.exec(statement)?.[2];
    if (target === undefined) continue;
    const local = target.startsWith('/') || target.startsWith('./') || target.startsWith('../');
    if (!local || CODE_EXTENSIONS.test(target)) continue;
    const joined = target.startsWith('/')
      ? path.posix.normalize(target.slice(1))
      : path.posix.normalize(path.posix.join(path.posix.dirname(fromFile), target));
    const candidates = /\.(mdx|md)$/i.test(joined) ? [joined] : [`${joined}.mdx`, `${joined}.md`, joined];
    const file = candidates.find((c) => files.has(c));
    if (file !== undefined) {
      found.push(file);
      continue;
    }
    // Inside a code block it is an example, not an import; outside, the parser warns about it.
    if (!fences.some(([start, end]) => match.index > start && match.index < end)) found.push(null);
  }
  return found;
};

/** Offsets of fenced code blocks (``` or ~~~, any indent); an unclosed fence runs to the end. */
const fencedRanges = (source: string): [number, number][] => {
  const ranges: [number, number][] = [];
  const fence = /^[ \t]*(`{3,}|~{3,})/gm;
  let open: { at: number; marker: string } | null = null;
  for (let match = fence.exec(source); match !== null; match = fence.exec(source)) {
    const marker = match[1] ?? '';
    if (open === null) open = { at: match.index, marker };
    else if (marker[0] === open.marker[0] && marker.length >= open.marker.length) {
      ranges.push([open.at, match.index]);
      open = null;
    }
  }
  if (open !== null) ranges.push([open.at, source.length]);
  return ranges;
};

interface ScannedSnippet {
  text: string;
  /** The file's stamp when it was read (ContainedText). */
  stamp: string | null;
  /** As scanImports gives them (null: more imports than are scanned). */
  imports: (string | null)[] | null;
}

/** Snippet files read and scanned once per ingestion: hundreds of pages import the same few. */
export type SnippetScanCache = Map<string, Promise<ScannedSnippet | null>>;

/**
 * Every snippet file reachable from a page by imports, sorted, with its text: what a page's content
 * hash covers besides its own source; `missing` when an import names a file that does not exist (the
 * parser warns about it, so the page cannot be reused without parsing). Null when the scan cannot
 * vouch for the page (too many imports or files, a snippet unreadable): the page is then parsed, and
 * hashed over what the parser resolved.
 */
const scannedFile = (
  folder: ContainedFolder,
  files: ReadonlySet<string>,
  cache: SnippetScanCache,
  file: string,
  includeRoot: string | null,
): Promise<ScannedSnippet | null> => {
  let entry = cache.get(file);
  if (!entry) {
    entry = folder.readText(file, MAX_PAGE_FILE_BYTES).then((read) =>
      // An unreadable snippet gets a warning from the parser: leave the page to it.
      read.ok
        ? { text: read.text, stamp: read.stamp, imports: scanImports(file, read.text, files, includeRoot) }
        : null,
    );
    cache.set(file, entry);
  }
  return entry;
};

export const importClosure = async (
  folder: ContainedFolder,
  files: ReadonlySet<string>,
  page: string,
  source: string,
  cache: SnippetScanCache = new Map(),
  /** A VitePress site's `srcDir`: its include directives count too (scanImports). */
  includeRoot: string | null = null,
): Promise<{
  parts: { file: string; source: string; stamp: string | null }[];
  missing: boolean;
} | null> => {
  const scanned = (file: string): Promise<ScannedSnippet | null> =>
    scannedFile(folder, files, cache, file, includeRoot);
  const texts = new Map<string, ScannedSnippet>();
  let missing = false;
  let frontier = scanImports(page, source, files, includeRoot);
  if (frontier === null) return null;
  for (let depth = 0; frontier.length > 0; depth++) {
    // Deeper than the renderer inlines: anything past it is still covered by the hash.
    if (depth > MAX_SNIPPET_DEPTH + 1) break;
    const next: (string | null)[] = [];
    for (const file of new Set(frontier)) {
      if (file === null) {
        missing = true;
        continue;
      }
      if (texts.has(file)) continue;
      if (texts.size >= MAX_CLOSURE_FILES) return null;
      const snippet = await scanned(file);
      if (snippet === null || snippet.imports === null) return null;
      texts.set(file, snippet);
      next.push(...snippet.imports);
    }
    frontier = next;
  }
  const parts = [...texts.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([file, { text, stamp }]) => ({ file, source: text, stamp }));
  return { parts, missing };
};

/**
 * The shape of a page's imports with every file name taken out: the files its imports reach in
 * breadth-first order (imports in the order they are written), each given as its extension (`.md` and
 * `.mdx` parse differently), its text and the positions in that order of the files it imports (-1 for
 * an import of a missing file). Two pages with the same source and the same shape render the same
 * snippets into the same blocks wherever they sit, since the renderer knows a snippet only by its text
 * and by which file it is (cycles); so identical pages in two copies of a folder (versioned docs) share
 * one parse (duplicate-pages.ts). `files` names the positions, the page first: what a shared parse's
 * warnings are moved to. Null whenever the scan cannot vouch for a file (as for importClosure), or past
 * MAX_CLOSURE_FILES files.
 */
export const importShape = async (
  folder: ContainedFolder,
  files: ReadonlySet<string>,
  page: string,
  source: string,
  cache: SnippetScanCache = new Map(),
  includeRoot: string | null = null,
): Promise<{ nodes: { extension: string; text: string; imports: number[] }[]; files: string[] } | null> => {
  const order = new Map<string, number>([[page, 0]]);
  const nodes: { extension: string; text: string; imports: number[] }[] = [];
  const pending: { file: string; text: string; imports: (string | null)[] | null }[] = [
    { file: page, text: source, imports: scanImports(page, source, files, includeRoot) },
  ];
  for (let at = 0; at < pending.length; at++) {
    const node = pending[at] as (typeof pending)[number];
    if (node.imports === null) return null;
    const imports: number[] = [];
    for (const target of node.imports) {
      if (target === null) {
        imports.push(-1);
        continue;
      }
      let position = order.get(target);
      if (position === undefined) {
        if (order.size > MAX_CLOSURE_FILES) return null;
        const snippet = await scannedFile(folder, files, cache, target, includeRoot);
        if (snippet === null) return null;
        position = order.size;
        order.set(target, position);
        pending.push({ file: target, text: snippet.text, imports: snippet.imports });
      }
      imports.push(position);
    }
    nodes.push({ extension: path.posix.extname(node.file).toLowerCase(), text: node.text, imports });
  }
  return { nodes, files: [...order.keys()] };
};
