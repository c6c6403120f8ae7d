import { parse as parseYaml } from 'yaml';
import { analyzeChunk } from '../search/analyze.ts';
import { chunkPage } from './chunk-page.ts';
import { containedFolder, MAX_PAGE_FILE_BYTES } from './contained-file.ts';
import { contentHash } from './content-hash.ts';
import { MAX_PAGE_CHUNKS } from './ingest-limits.ts';
import { treeToBlocks } from './mdx-to-sections.ts';
import { parseCostProblem } from './parse-cost.ts';
import { parseSource } from './parse-markdown.ts';
import { SnippetStore } from './snippets.ts';
import type { ParsedChunk, ParsedPage, Warning } from './types.ts';

/** A page file chosen for indexing, with the labels and the place the navigation gives it. */
export interface PageCandidate {
  id: string;
  file: string;
  versions: string[];
  languages: string[];
  navOrder: number | null;
  navGroup: string | null;
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
  /**
   * Content hashes the caller already holds, by page id. A page whose hash can be known without
   * parsing (it imports nothing) and matches is returned as `reused` instead of parsed again.
   */
  known?: Readonly<Record<string, string>>;
  /** Also run the search analyzer on each chunk (`analyzedJson`). */
  analyze?: boolean;
}

const isTrue = (value: unknown): boolean => value === true || value === 'true';
const isFalse = (value: unknown): boolean => value === false || value === 'false';

const frontMatterString = (value: unknown): string | null => {
  if (typeof value === 'string') return value.trim() === '' ? null : value.trim();
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return null;
};

const skipFlags = (fm: Record<string, unknown>, indexHidden: boolean): boolean =>
  (isTrue(fm.hidden) && !indexHidden) || isTrue(fm.noindex) || isFalse(fm.searchable);

/**
 * Reads only the front matter block (`---` lines at the very start, as remark-frontmatter delimits it)
 * so that pages left out on purpose, often the largest ones like changelogs, are not parsed at all.
 * Anything unusual falls through to the full parse, which reports problems with their lines.
 */
const skippedByFrontMatter = (source: string, indexHidden: boolean): boolean => {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?(?:\n|$)/.exec(source);
  if (!match?.[1]) return false;
  try {
    const data: unknown = parseYaml(match[1]);
    return (
      typeof data === 'object' && data !== null && skipFlags(data as Record<string, unknown>, indexHidden)
    );
  } catch {
    return false;
  }
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

/** Returns a function turning one page file into a ParsedPage; snippets are cached across calls. */
export const createPageLoader = (
  options: PageLoaderOptions,
): ((candidate: PageCandidate) => Promise<PageResult>) => {
  const snippets = new SnippetStore(options.root, new Set(options.files));
  const folder = containedFolder(options.root);

  return async (candidate) => {
    const { file } = candidate;
    const warnings: Warning[] = [];
    const read = await folder.readText(file, MAX_PAGE_FILE_BYTES);
    if (!read.ok) {
      warnings.push({ file, message: `cannot read file (${read.reason}); skipped` });
      return { page: null, skipped: false, warnings, snippetFiles: [] };
    }
    const source = read.text;
    // MDX reads ESM only at the start of a line: without such an `import` the content hash depends on
    // nothing but the page's own source and labels, so an unchanged page is known before the parse.
    // Own keys only: a page named `constructor` must not find Object's.
    const known =
      options.known !== undefined && Object.hasOwn(options.known, candidate.id)
        ? options.known[candidate.id]
        : undefined;
    if (known !== undefined && !/^import\b/m.test(source)) {
      const hash = contentHash({
        path: candidate.id,
        source,
        snippets: [],
        versions: candidate.versions,
        languages: candidate.languages,
      });
      if (hash === known) {
        const page: ParsedPage = {
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
        };
        return { page, skipped: false, warnings, snippetFiles: [] };
      }
    }
    if (skippedByFrontMatter(source, options.indexHidden)) {
      return { page: null, skipped: true, warnings, snippetFiles: [] };
    }
    const tooCostly = parseCostProblem(source);
    if (tooCostly !== null) {
      warnings.push({ file, message: `${tooCostly}; skipped` });
      return { page: null, skipped: false, warnings, snippetFiles: [] };
    }
    const parsed = parseSource(file, source, (w) => warnings.push(w));
    const fm = parsed.frontMatter;
    if (skipFlags(fm, options.indexHidden)) {
      return { page: null, skipped: true, warnings, snippetFiles: [] };
    }

    const resolved = await snippets.resolve(snippets.scopeFor(parsed.tree, file, warnings));
    warnings.push(...resolved.warnings);
    const blocks = treeToBlocks(parsed.tree, {
      snippets: resolved,
      pageChars: source.length,
      onCycle: (chain) => {
        const at = chain[chain.length - 2] ?? file;
        warnings.push({ file: at, message: `snippet import cycle ${chain.join(' → ')}; not inlined again` });
      },
      onLimit: (message) => warnings.push({ file, message }),
    });
    const firstH1 = blocks.find((b) => b.kind === 'heading' && b.depth === 1)?.text ?? null;
    const title =
      frontMatterString(fm.title) ?? frontMatterString(fm.sidebarTitle) ?? firstH1 ?? baseName(candidate.id);
    const description = frontMatterString(fm.description);
    let chunks = chunkPage({ title, description, blocks });
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
      contentHash: contentHash({
        path: candidate.id,
        source,
        snippets: resolved.files.map((f) => ({ file: f, source: resolved.byFile.get(f)?.source ?? '' })),
        versions: candidate.versions,
        languages: candidate.languages,
      }),
      chunks: analyzed(chunks, title, candidate, options.analyze ?? false),
    };
    return { page, skipped: false, warnings, snippetFiles: resolved.files };
  };
};
