import { parse as parseYaml } from 'yaml';
import { analyzeChunk } from '../search/analyze.ts';
import { chunkPage } from './chunk-page.ts';
import { containedFolder, MAX_PAGE_FILE_BYTES } from './contained-file.ts';
import { contentHash, type HashSubject } from './content-hash.ts';
import { type ShareInfo, shareKey } from './duplicate-pages.ts';
import { vitePressHome } from './frameworks/vitepress-home.ts';
import { expandIncludes } from './frameworks/vitepress-includes.ts';
import { frontMatterBlock } from './front-matter.ts';
import { type AnchorStyle, withExplicitIds } from './heading-anchors.ts';
import { importClosure, importShape, type SnippetScanCache } from './import-closure.ts';
import { MAX_PAGE_CHUNKS } from './ingest-limits.ts';
import { type Block, treeToBlocks } from './mdx-to-sections.ts';
import {
  frontMatterOperationSource,
  generatedOperationSource,
  loadOperation,
  missingOperationWarning,
  type OperationSource,
} from './openapi/operation-pages.ts';
import { findOperation } from './openapi/operations.ts';
import { createSpecCache, type SpecCache, type SpecListing } from './openapi/spec-cache.ts';
import { parseCostProblem } from './parse-cost.ts';
import { type PageSyntax, parseSource } from './parse-markdown.ts';
import { SnippetStore } from './snippets.ts';
import { currentStamp, type FileStampCache, pageStamp } from './source-stamps.ts';
import type { PageStamp, ParsedChunk, ParsedPage, StampedHash, Warning } from './types.ts';

/**
 * A file git-lfs left in place of the real one: its pointer (spec v1), which is all a clone made without
 * LFS downloads (git sources) or a checkout without git-lfs holds.
 */
const LFS_POINTER =
  /^version https:\/\/git-lfs\.github\.com\/spec\/v1\r?\n(?:ext-\d+-\w+ sha256:[0-9a-f]{64}\r?\n)*oid sha256:[0-9a-f]{64}\r?\nsize \d+\r?\n?$/;

/** A page file chosen for indexing, with the labels and the place the navigation gives it. */
export interface PageCandidate {
  id: string;
  file: string;
  versions: string[];
  languages: string[];
  navOrder: number | null;
  navGroup: string | null;
  /** A page generated from this OpenAPI operation of `file` (the spec) rather than from Markdown. */
  operation?: { method: string; path: string };
  /** The OpenAPI file the navigation gives the page, for `openapi:` front matter that names none. */
  openapiSpec?: string;
}

export interface PageResult {
  /** Null when the page is skipped on purpose or could not be read. */
  page: ParsedPage | null;
  skipped: boolean;
  /** Everything that went wrong with this page and the snippets it reaches, in a stable order. */
  warnings: Warning[];
  snippetFiles: string[];
}

export interface PageLoaderOptions {
  root: string;
  /** Every .md/.mdx file under the root (relative), for resolving snippet imports without stat calls. */
  files: readonly string[];
  /** `seo.indexing: "all"`: keep `hidden: true` pages. */
  indexHidden: boolean;
  /** Also run the search analyzer on each chunk (`analyzedJson`). */
  analyze?: boolean;
  /** Every OpenAPI file the config declares: where `openapi:` front matter without a file is looked up. */
  openapiSpecs?: readonly string[];
  /** The site's framework block syntax (parse-markdown.ts), when it has one. */
  syntax?: PageSyntax;
  /** How the site's framework makes heading ids (heading-anchors.ts); github-slugger's when absent. */
  anchors?: AnchorStyle;
  /** A VitePress site's `srcDir` (relative to `root`), where `@/` include paths start; the root when absent. */
  includeRoot?: string;
}

/** Where include directives' `@/` paths start, for a VitePress site; null: no include directives are read. */
const includeRootOf = (options: PageLoaderOptions): string | null =>
  options.syntax === 'vitepress' ? (options.includeRoot ?? '') : null;

const isTrue = (value: unknown): boolean => value === true || value === 'true';
const isFalse = (value: unknown): boolean => value === false || value === 'false';

const frontMatterString = (value: unknown): string | null => {
  if (typeof value === 'string') return value.trim() === '' ? null : value.trim();
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return null;
};

const skipFlags = (fm: Record<string, unknown>, indexHidden: boolean): boolean =>
  (isTrue(fm.hidden) && !indexHidden) || isTrue(fm.noindex) || isFalse(fm.searchable);

const frontMatterData = (block: string | null): Record<string, unknown> | null => {
  if (!block) return null;
  try {
    const data: unknown = parseYaml(block);
    return typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : null;
  } catch {
    return null;
  }
};

/** The keys skipFlags reads: a block that never names one cannot skip its page. */
const SKIP_KEY = /hidden|noindex|searchable/;

const skippedByFrontMatter = (block: string | null, indexHidden: boolean): boolean => {
  // Most pages' front matter is a title and a description: the YAML is parsed once, by the full parse,
  // not here too (this parse was about 1.5 % of a page worker's time on mintlify-docs).
  if (block === null || !SKIP_KEY.test(block)) return false;
  const data = frontMatterData(block);
  return data !== null && skipFlags(data, indexHidden);
};

const analyzed = (
  chunks: ParsedChunk[],
  title: string,
  candidate: PageCandidate,
  analyze: boolean,
): ParsedChunk[] => {
  if (!analyze) return chunks;
  const language = candidate.languages[0] ?? null;
  return chunks.map((chunk) => ({
    ...chunk,
    analyzedJson: JSON.stringify(
      analyzeChunk({ pageTitle: title, headings: chunk.headings, text: chunk.text, language }),
    ),
  }));
};

const baseName = (id: string): string => id.slice(id.lastIndexOf('/') + 1);

/** What a page's content hash covers besides its files' text: one place for the triage and the parser. */
const hashSubject = (candidate: PageCandidate, options: PageLoaderOptions): HashSubject => ({
  path: candidate.id,
  versions: candidate.versions,
  languages: candidate.languages,
  syntax: options.syntax ?? '',
  ...(options.anchors === undefined || options.anchors === 'github' ? {} : { anchors: options.anchors }),
  indexHidden: options.indexHidden,
});

const reusedPage = (candidate: PageCandidate, hash: string): PageResult => ({
  page: {
    path: candidate.id,
    title: '',
    description: null,
    versions: candidate.versions,
    languages: candidate.languages,
    navOrder: candidate.navOrder,
    navGroup: candidate.navGroup,
    contentHash: hash,
    chunks: [],
    reused: true,
  },
  skipped: false,
  warnings: [],
  snippetFiles: [],
});

/**
 * What the main thread learns about a page before any worker sees it (createPageTriage): either the
 * page is one the caller already holds (`reused`, not parsed), or it must be parsed; then, when the
 * page's parse may be shared with identical pages (duplicate-pages.ts), its `shareKey` and the content
 * hash the worker would compute, so that a page sharing another's parse gets its own hash. `byStamp`: reused
 * because its source stamp is unchanged, without reading it. `stamped`:
 * the page's source stamp (source-stamps.ts) and the content hash computed from the same reads, when
 * this triage read the page and every file could be stamped.
 */
export type PageTriage = ({ reused: PageResult } | { reused: null; share: ShareInfo | null }) & {
  stamped?: StampedHash;
};

const parseIt: PageTriage = { reused: null, share: null };

/** What a triage knows of the stored site: content hashes and, for pages that have one, source stamps. */
export interface KnownPages {
  /** Content hashes the caller already holds, by page id (own keys only are read). */
  hashes: Readonly<Record<string, string>>;
  /** Stamps of stored pages (source-stamps.ts), by page id, each vouching for the page's hash above. */
  stamps: ReadonlyMap<string, PageStamp>;
  /** `folderDigest` of this load's Markdown files. */
  folder: string;
}

/**
 * Decides, without parsing Markdown, whether a page is one the caller already holds: its source stamp
 * (one `stat` per file, nothing read) equals the stored one, or else its content hash (own source, the
 * snippet files its imports reach, the OpenAPI operation it shows, its labels) equals the known one.
 * Anything it cannot vouch for (a read that fails, too many imports or a missing snippet, an OpenAPI file
 * too large to parse on this thread) must be parsed. It runs on the main thread, so an unchanged
 * re-ingest starts no worker at all.
 *
 * With `share`, a page to be parsed also gets its share key (duplicate-pages.ts), which costs reading
 * it on this thread even when nothing is known (a cold ingestion). Pages with `openapi:` front matter
 * and generated operation pages never get one: their content is not only their file's.
 */
export const createPageTriage = (
  options: PageLoaderOptions,
  /** What the caller already holds; null: nothing. */
  known: KnownPages | null,
  /** The caller's cache of OpenAPI files small enough to parse on the main thread (`maxBytes` set). */
  smallSpecs: SpecCache,
  share: boolean,
): ((candidate: PageCandidate) => Promise<PageTriage>) => {
  const folder = containedFolder(options.root);
  const specs = createSpecCache(folder);
  const fileSet = new Set(options.files);
  const snippetScans: SnippetScanCache = new Map();
  const fileStamps: FileStampCache = new Map();
  const includeRoot = includeRootOf(options);
  return async (candidate) => {
    // Own keys only: a page named `constructor` must not find Object's.
    const stored =
      known !== null && Object.hasOwn(known.hashes, candidate.id) ? known.hashes[candidate.id] : undefined;
    if (stored === undefined && !share) return parseIt;
    const subject = { ...hashSubject(candidate, options), file: candidate.file, folder: known?.folder ?? '' };
    const before = stored === undefined ? undefined : known?.stamps.get(candidate.id);
    if (stored !== undefined && before !== undefined && !candidate.operation) {
      const now = await currentStamp(folder, subject, before.files, fileStamps);
      if (now?.stamp === before.stamp) return { reused: reusedPage(candidate, stored), byStamp: true };
    }
    const hashOf = (source: string, parts: { file: string; source: string }[]): string =>
      contentHash({ ...subject, source, snippets: parts });
    if (candidate.operation) {
      if (stored === undefined) return parseIt;
      const found = await generatedOperationSource(
        specs,
        candidate.file,
        candidate.operation.method,
        candidate.operation.path,
      );
      if (!found.source) return parseIt;
      const hash = hashOf('', [found.source.hashPart]);
      return hash === stored ? { reused: reusedPage(candidate, hash) } : parseIt;
    }
    const read = await folder.readText(candidate.file, MAX_PAGE_FILE_BYTES);
    if (!read.ok) return parseIt;
    const source = read.text;
    const block = frontMatterBlock(source);
    if (block !== null && /^openapi\s*:/m.test(block)) {
      if (stored === undefined) return parseIt;
      const parts: { file: string; source: string }[] = [];
      const warnings: Warning[] = [];
      const value = frontMatterData(block)?.openapi;
      const found = await frontMatterOperationSource(
        smallSpecs,
        candidate.file,
        value,
        candidate.openapiSpec,
        options.openapiSpecs ?? [],
      );
      if (found.tooLarge) return parseIt;
      // A spec that is missing or lacks the operation leaves the page as it was: same hash, same warning.
      warnings.push(...found.warnings);
      if (found.source) {
        const listing = await smallSpecs.list(found.source.file);
        const { method, path } = found.source;
        if (listing.ok && !findOperation(listing.operations, method, path)) {
          warnings.push(missingOperationWarning(found.source, candidate.file));
        }
        parts.push(found.source.hashPart);
      }
      const closure = await importClosure(folder, fileSet, candidate.file, source, snippetScans, includeRoot);
      // A missing snippet's warning comes from the parser: such a page is parsed.
      if (closure === null || closure.missing) return parseIt;
      const hash = hashOf(source, [...closure.parts, ...parts]);
      return hash === stored ? { reused: { ...reusedPage(candidate, hash), warnings } } : parseIt;
    }
    const closure = await importClosure(folder, fileSet, candidate.file, source, snippetScans, includeRoot);
    if (closure === null) return parseIt;
    // What the worker computes too: without `openapi:` front matter its hash covers exactly this.
    const hash = hashOf(source, closure.parts);
    // A page whose import names a missing file is parsed every time (the warning is the parser's).
    const stamp =
      known === null || closure.missing
        ? null
        : pageStamp(subject, [{ file: candidate.file, stamp: read.stamp }, ...closure.parts]);
    const stamped = stamp === null ? {} : { stamped: { ...stamp, contentHash: hash } };
    // A missing snippet's warning comes from the parser: such a page is parsed (or shares a parse).
    if (!closure.missing && hash === stored) return { reused: reusedPage(candidate, hash), ...stamped };
    if (!share) return { ...parseIt, ...stamped };
    const shape = await importShape(folder, fileSet, candidate.file, source, snippetScans, includeRoot);
    if (shape === null) return { ...parseIt, ...stamped };
    return {
      reused: null,
      share: {
        key: shareKey({
          file: candidate.file,
          id: candidate.id,
          language: candidate.languages[0] ?? null,
          shape: shape.nodes,
        }),
        contentHash: hash,
        snippetFiles: closure.parts.map((part) => part.file),
        shapeFiles: shape.files,
      },
      ...stamped,
    };
  };
};

export interface PageLoader {
  /** Turns one page file (or OpenAPI operation) into a ParsedPage. */
  load(candidate: PageCandidate): Promise<PageResult>;
  /** The operations an OpenAPI file declares, for the navigation to place and name their pages. */
  operations(file: string): Promise<SpecListing>;
}

/** Snippets and OpenAPI documents are read once per loader (one ingestion in one worker). */
export const createPageLoader = (options: PageLoaderOptions): PageLoader => {
  const snippets = new SnippetStore(options.root, new Set(options.files), options.syntax);
  const folder = containedFolder(options.root);
  const specs = createSpecCache(folder);
  const fileSet = new Set(options.files);
  const snippetScans: SnippetScanCache = new Map();
  const includeRoot = includeRootOf(options);
  /** Generated Markdown (an operation page) to blocks, under the same parse-cost limits as a page. */
  const markdownBlocks = async (file: string, markdown: string, warnings: Warning[]): Promise<Block[]> => {
    const tooCostly = parseCostProblem(markdown);
    if (tooCostly !== null) {
      warnings.push({ file, message: `generated API reference text has ${tooCostly}; not indexed` });
      return [];
    }
    const parsed = parseSource(file, markdown, (w) => warnings.push(w), options.syntax);
    const resolved = await snippets.resolve(snippets.scopeFor(parsed.tree, file, warnings));
    return treeToBlocks(parsed.tree, {
      snippets: resolved,
      pageChars: markdown.length,
      onCycle: () => {},
      onLimit: (message) => warnings.push({ file, message }),
    });
  };

  const finish = (
    candidate: PageCandidate,
    file: string,
    title: string,
    description: string | null,
    blocks: Block[],
    hash: string,
    warnings: Warning[],
    snippetFiles: string[],
  ): PageResult => {
    let chunks = chunkPage({
      title,
      description,
      blocks,
      ...(options.anchors ? { anchors: options.anchors } : {}),
    });
    if (chunks.length > MAX_PAGE_CHUNKS) {
      warnings.push({
        file,
        message: `page makes ${chunks.length} chunks; only the first ${MAX_PAGE_CHUNKS} are indexed (MAX_PAGE_CHUNKS)`,
      });
      chunks = chunks.slice(0, MAX_PAGE_CHUNKS);
    }
    const page: ParsedPage = {
      path: candidate.id,
      title,
      description,
      versions: candidate.versions,
      languages: candidate.languages,
      navOrder: candidate.navOrder,
      navGroup: candidate.navGroup,
      contentHash: hash,
      chunks: analyzed(chunks, title, candidate, options.analyze ?? false),
    };
    return { page, skipped: false, warnings, snippetFiles };
  };

  const loadGenerated = async (
    candidate: PageCandidate,
    operation: { method: string; path: string },
  ): Promise<PageResult> => {
    const { file } = candidate;
    const found = await generatedOperationSource(specs, file, operation.method, operation.path);
    const warnings = [...found.warnings];
    if (!found.source) return { page: null, skipped: false, warnings, snippetFiles: [] };
    const hash = contentHash({
      ...hashSubject(candidate, options),
      source: '',
      snippets: [found.source.hashPart],
    });
    const loaded = await loadOperation(specs, found.source);
    warnings.push(...loaded.warnings);
    if (!loaded.page) return { page: null, skipped: false, warnings, snippetFiles: [] };
    const blocks = await markdownBlocks(file, loaded.page.markdown, warnings);
    return finish(candidate, file, loaded.page.title, loaded.page.description, blocks, hash, warnings, []);
  };

  const load = async (candidate: PageCandidate): Promise<PageResult> => {
    if (candidate.operation) return loadGenerated(candidate, candidate.operation);
    const { file } = candidate;
    const warnings: Warning[] = [];
    const read = await folder.readText(file, MAX_PAGE_FILE_BYTES);
    if (!read.ok) {
      warnings.push({ file, message: `cannot read file (${read.reason}); skipped` });
      return { page: null, skipped: false, warnings, snippetFiles: [] };
    }
    const source = read.text;
    if (LFS_POINTER.test(source)) {
      warnings.push({
        file,
        message: 'is a Git LFS pointer, not the page (LFS files are not downloaded); skipped',
      });
      return { page: null, skipped: false, warnings, snippetFiles: [] };
    }
    // `openapi:` front matter adds the operation's reference to the page, and its spec to the page's hash.
    let operation: OperationSource | null = null;
    const block = frontMatterBlock(source);
    if (block !== null && /^openapi\s*:/m.test(block)) {
      const found = await frontMatterOperationSource(
        specs,
        file,
        frontMatterData(block)?.openapi,
        candidate.openapiSpec,
        options.openapiSpecs ?? [],
      );
      operation = found.source;
      warnings.push(...found.warnings);
    }
    const extraHashParts = operation ? [operation.hashPart] : [];
    // Snippets found by scanning imports (import-closure.ts): the same files the reuse check hashes.
    const closure = await importClosure(folder, fileSet, file, source, snippetScans, includeRoot);
    if (skippedByFrontMatter(block, options.indexHidden)) {
      return { page: null, skipped: true, warnings, snippetFiles: [] };
    }
    // What VitePress reads: the page with its `<!--@include: …-->` files in place. The hash stays over the
    // page's own text and the included files (the closure), as the reuse check computes it.
    const { text, files: included } =
      includeRoot === null
        ? { text: source, files: [] }
        : await expandIncludes(folder, file, source, includeRoot, warnings);
    const tooCostly = parseCostProblem(text);
    if (tooCostly !== null) {
      warnings.push({ file, message: `${tooCostly}; skipped` });
      return { page: null, skipped: false, warnings, snippetFiles: [] };
    }
    const parsed = parseSource(file, text, (w) => warnings.push(w), options.syntax);
    const fm = parsed.frontMatter;
    if (skipFlags(fm, options.indexHidden)) {
      return { page: null, skipped: true, warnings, snippetFiles: [] };
    }

    const resolved = await snippets.resolve(snippets.scopeFor(parsed.tree, file, warnings));
    warnings.push(...resolved.warnings);
    const blocks = withExplicitIds(
      treeToBlocks(parsed.tree, {
        snippets: resolved,
        pageChars: text.length,
        onCycle: (chain) => {
          const at = chain[chain.length - 2] ?? file;
          warnings.push({
            file: at,
            message: `snippet import cycle ${chain.join(' → ')}; not inlined again`,
          });
        },
        onLimit: (message) => warnings.push({ file, message }),
      }),
      options.anchors,
    );
    // The hero and features of a VitePress home page sit above its Markdown body.
    const home = options.syntax === 'vitepress' ? vitePressHome(fm) : null;
    if (home) blocks.unshift(...home.blocks);
    let reference: { title: string; description: string | null } | null = null;
    if (operation) {
      const loaded = await loadOperation(specs, operation, file);
      warnings.push(...loaded.warnings);
      if (loaded.page) {
        reference = loaded.page;
        blocks.push(...(await markdownBlocks(operation.file, loaded.page.markdown, warnings)));
      }
    }
    const firstH1 = blocks.find((b) => b.kind === 'heading' && b.depth === 1)?.text ?? null;
    const title =
      frontMatterString(fm.title) ??
      frontMatterString(fm.sidebarTitle) ??
      reference?.title ??
      home?.title ??
      firstH1 ??
      baseName(candidate.id);
    const description = frontMatterString(fm.description) ?? reference?.description ?? null;
    const hash = contentHash({
      ...hashSubject(candidate, options),
      source,
      snippets: [
        ...(closure?.parts ??
          resolved.files.map((f) => ({ file: f, source: resolved.byFile.get(f)?.source ?? '' }))),
        ...extraHashParts,
      ],
    });
    const snippetFiles = [...new Set([...resolved.files, ...included])];
    return finish(candidate, file, title, description, blocks, hash, warnings, snippetFiles);
  };
  return { load, operations: (file) => specs.list(file) };
};
