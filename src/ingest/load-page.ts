import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { chunkPage } from './chunk-page.ts';
import { contentHash } from './content-hash.ts';
import { treeToBlocks } from './mdx-to-sections.ts';
import { parseSource } from './parse-markdown.ts';
import { SnippetStore } from './snippets.ts';
import type { ParsedPage, Warning } from './types.ts';

/** A page file chosen for indexing, with the labels the navigation gives it. */
export interface PageCandidate {
  id: string;
  file: string;
  versions: string[];
  languages: string[];
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
}

const isTrue = (value: unknown): boolean => value === true || value === 'true';
const isFalse = (value: unknown): boolean => value === false || value === 'false';

const frontMatterString = (value: unknown): string | null => {
  if (typeof value === 'string') return value.trim() === '' ? null : value.trim();
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return null;
};

const baseName = (id: string): string => id.slice(id.lastIndexOf('/') + 1);

/** Returns a function turning one page file into a ParsedPage; snippets are cached across calls. */
export const createPageLoader = (
  options: PageLoaderOptions,
): ((candidate: PageCandidate) => Promise<PageResult>) => {
  const snippets = new SnippetStore(options.root, new Set(options.files));

  return async (candidate) => {
    const { file } = candidate;
    const warnings: Warning[] = [];
    let source: string;
    try {
      source = await readFile(path.join(options.root, file), 'utf8');
    } catch (error) {
      warnings.push({ file, message: `cannot read file: ${(error as Error).message}` });
      return { page: null, skipped: false, warnings, snippetFiles: [] };
    }
    const parsed = parseSource(file, source, (w) => warnings.push(w));
    const fm = parsed.frontMatter;
    if ((isTrue(fm.hidden) && !options.indexHidden) || isTrue(fm.noindex) || isFalse(fm.searchable)) {
      return { page: null, skipped: true, warnings, snippetFiles: [] };
    }

    const resolved = await snippets.resolve(snippets.scopeFor(parsed.tree, file, warnings));
    warnings.push(...resolved.warnings);
    const blocks = treeToBlocks(parsed.tree, {
      snippets: resolved,
      onCycle: (chain) => {
        const at = chain[chain.length - 2] ?? file;
        warnings.push({ file: at, message: `snippet import cycle ${chain.join(' → ')}; not inlined again` });
      },
    });
    const firstH1 = blocks.find((b) => b.kind === 'heading' && b.depth === 1)?.text ?? null;
    const title =
      frontMatterString(fm.title) ?? frontMatterString(fm.sidebarTitle) ?? firstH1 ?? baseName(candidate.id);
    const description = frontMatterString(fm.description);
    const page: ParsedPage = {
      path: candidate.id,
      title,
      description,
      versions: candidate.versions,
      languages: candidate.languages,
      contentHash: contentHash({
        path: candidate.id,
        source,
        snippets: resolved.files.map((f) => ({ file: f, source: resolved.byFile.get(f)?.source ?? '' })),
        versions: candidate.versions,
        languages: candidate.languages,
      }),
      chunks: chunkPage({ title, description, blocks }),
    };
    return { page, skipped: false, warnings, snippetFiles: resolved.files };
  };
};
