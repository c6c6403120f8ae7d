/**
 * Context for an agent that runs its own model (`POST /v1/context/{domain}`): the best sections for a
 * query, packed into a token budget, numbered for citing, with their links.
 */
import type { SiteSearch } from '../search/site-search.ts';
import type { Site } from '../tenancy/sites.ts';
import { type DocsFilter, searchDocs } from './search-docs.ts';

export const DEFAULT_CONTEXT_TOKENS = 4_000;
/** Largest budget packed: beyond it an agent wants whole pages (the page API, llms-full.txt). */
export const MAX_CONTEXT_TOKENS = 32_000;
/** Sections considered for the budget, best first. */
export const CONTEXT_CANDIDATES = 50;
/**
 * Tokens a text is counted as: one per four characters, rounded up. Tokenizers differ by model; this is
 * the usual estimate for English prose and code, and errs high on plain words.
 */
export const CHARS_PER_TOKEN = 4;

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

export interface ContextSection {
  /** Citation number, 1… in rank order. */
  n: number;
  title: string;
  url: string;
  path: string;
  content: string;
  tokens: number;
}

export interface PackedContext {
  query: string;
  tokenBudget: number;
  /** Estimated tokens of `text` (never more than the budget). */
  tokens: number;
  sections: ContextSection[];
  /** The sections as one prompt-ready text: `[n] Title (url)` then the content, for each. */
  text: string;
}

export async function packContext(
  search: SiteSearch,
  site: Site,
  input: { query: string; tokenBudget: number; filter?: DocsFilter | undefined },
  docentUrl: string,
): Promise<PackedContext> {
  const hits = await searchDocs(
    search,
    site,
    { query: input.query, pageSize: CONTEXT_CANDIDATES, filter: input.filter },
    docentUrl,
  );
  const sections: ContextSection[] = [];
  const blocks: string[] = [];
  let used = 0;
  for (const hit of hits) {
    const n = sections.length + 1;
    const title = hit.metadata.breadcrumbs.join(' › ');
    const block = `[${n}] ${title} (${hit.metadata.url})\n${hit.content}`;
    // Blocks are joined by a blank line, counted with the block it precedes.
    const cost = estimateTokens(block) + (blocks.length === 0 ? 0 : 1);
    // A section that does not fit is skipped, not cut: a smaller one further down may still fit.
    if (used + cost > input.tokenBudget) continue;
    used += cost;
    blocks.push(block);
    sections.push({ n, title, url: hit.metadata.url, path: hit.path, content: hit.content, tokens: cost });
  }
  const text = blocks.join('\n\n');
  return { query: input.query, tokenBudget: input.tokenBudget, tokens: estimateTokens(text), sections, text };
}
