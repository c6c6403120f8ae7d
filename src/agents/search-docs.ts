/**
 * Searching a site's docs for a caller that reads the results itself (the search API, the MCP
 * `search_docs` tool): the same index, filters and absolute links as the assistant's retrieval, with
 * no answer and no credit cost.
 */
import { sourceLinker } from '../assistant/source-links.ts';
import type { SearchResult, SiteSearch } from '../search/site-search.ts';
import type { Site } from '../tenancy/sites.ts';

/** Longest query searched (characters): a question, not a document. */
export const MAX_SEARCH_QUERY_CHARS = 2_000;
export const DEFAULT_SEARCH_PAGE_SIZE = 10;
export const MAX_SEARCH_PAGE_SIZE = 50;

export interface DocsFilter {
  version?: string | undefined;
  language?: string | undefined;
}

export interface DocsSearchInput {
  query: string;
  pageSize: number;
  /** Results scoring below this (0–1, relative to the best match) are left out. */
  scoreThreshold?: number | undefined;
  filter?: DocsFilter | undefined;
}

/** One result, in the shape of the hosted service's search endpoint. */
export interface DocsSearchHit {
  /** The section's text as stored (components reduced to text, code fenced). */
  content: string;
  /** The page's path in the site (`guides/cli`). */
  path: string;
  metadata: {
    title: string;
    /** Page title, then the headings leading to the section. */
    breadcrumbs: string[];
    /** Absolute link to the section (the site's own docs, else Docent's page view). */
    url: string;
    version?: string;
    language?: string;
    /**
     * Relevance relative to the best result of this query: 1 for the best, less for the others. BM25
     * scores have no fixed scale, so an absolute 0–1 figure would pretend to a meaning it lacks.
     */
    score: number;
  };
}

export async function searchDocs(
  search: SiteSearch,
  site: Site,
  input: DocsSearchInput,
  docentUrl: string,
): Promise<DocsSearchHit[]> {
  const results = await search.search(
    site.id,
    input.query,
    {
      limit: input.pageSize,
      version: input.filter?.version,
      language: input.filter?.language,
    },
    site,
  );
  const link = sourceLinker(site, docentUrl);
  const best = results[0]?.score ?? 0;
  const threshold = input.scoreThreshold ?? 0;
  const hits: DocsSearchHit[] = [];
  for (const result of results) {
    const score = best > 0 ? round(result.score / best) : 0;
    if (score < threshold) continue;
    hits.push({
      content: result.text,
      path: result.pagePath,
      metadata: {
        title: result.title,
        breadcrumbs: result.breadcrumbs,
        url: link(result),
        ...label('version', result.versions, input.filter?.version),
        ...label('language', result.languages, input.filter?.language),
        score,
      },
    });
  }
  return hits;
}

/**
 * The version (language) a result belongs to: the one filtered on when the page carries it (as the page
 * spells it: a filter matches trimmed and in any case), else the page's only label; none for a page
 * under several labels or none (it matches every filter).
 */
function label<K extends 'version' | 'language'>(
  key: K,
  labels: readonly string[],
  filtered: string | undefined,
): Partial<Record<K, string>> {
  const wanted = filtered?.trim().toLowerCase();
  const own = wanted ? labels.find((l) => l.trim().toLowerCase() === wanted) : undefined;
  if (own !== undefined) return { [key]: own } as Record<K, string>;
  const only = labels.length === 1 ? labels[0] : undefined;
  return only === undefined ? {} : ({ [key]: only } as Record<K, string>);
}

function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}

export type { SearchResult };
