import { type CoreTool, tool } from 'ai';
import { z } from 'zod';
import type { SearchResult } from '../search/site-search.ts';
import type { CitableSource, SearchResultItem } from './stream-protocol.ts';
import type { StoredSource } from './threads.ts';

/** Longest query a model may send to the `search` tool. */
export const MAX_TOOL_QUERY_CHARS = 500;

/** Every source an answer may cite, by citation number: the first retrieval's, then the model's own. */
export interface AnswerSources {
  /** For the `h:` parts. */
  citable: CitableSource[];
  /** For the thread message. */
  stored: StoredSource[];
}

/** Numbers the first retrieval's chunks 1…n, in order (the built-in answerer and the prompt use these). */
export function initialSources(results: readonly SearchResult[]): AnswerSources {
  const sources: AnswerSources = { citable: [], stored: [] };
  for (const [i, r] of results.entries()) add(sources, String(i + 1), r);
  return sources;
}

function add(sources: AnswerSources, id: string, r: SearchResult): void {
  sources.citable.push({ id, url: r.url, title: [r.title, ...r.breadcrumbs.slice(1)].join(' › ') });
  sources.stored.push({ id, url: r.url, title: r.title, path: r.pagePath });
}

/** What the model gets back from one search: numbered excerpts, or why there are none. */
export type SearchToolOutput =
  | { sources: { id: string; title: string; url: string; path: string; text: string }[] }
  | { error: string };

/**
 * The `search` tool a real model may call when the excerpts it was given do not answer the question.
 * New chunks are numbered after the known ones (a chunk already known keeps its number), so `[n]` in the
 * answer always names one source. After `steps` searches it answers with an instruction to answer.
 */
export function searchTool(options: {
  steps: number;
  sources: AnswerSources;
  search: (query: string) => Promise<SearchResult[]>;
}): CoreTool {
  let used = 0;
  return tool({
    description:
      "Search this documentation site. Call it only when the excerpts you have do not answer the question; pass a short query in the documentation's own words.",
    parameters: z.object({ query: z.string().min(1).max(MAX_TOOL_QUERY_CHARS) }),
    execute: async ({ query }): Promise<SearchToolOutput> => {
      used++;
      if (used > options.steps) return { error: 'No more searches: answer from the excerpts you have.' };
      const found = await options.search(query);
      return {
        sources: found.map((r) => {
          let id = options.sources.citable.find((s) => s.url === r.url)?.id;
          if (id === undefined) {
            id = String(options.sources.citable.length + 1);
            add(options.sources, id, r);
          }
          return {
            id,
            title: [r.title, ...r.breadcrumbs.slice(1)].join(' › '),
            url: r.url,
            path: r.pagePath,
            text: r.text,
          };
        }),
      };
    },
  });
}

/** The pages of a search for its `a:` part: one entry per URL, with the page's title. */
export function resultItems(sources: readonly StoredSource[]): SearchResultItem[] {
  const seen = new Set<string>();
  const items: SearchResultItem[] = [];
  for (const s of sources) {
    if (seen.has(s.url)) continue;
    seen.add(s.url);
    items.push({ path: s.path, url: s.url, title: s.title });
  }
  return items;
}

/** `resultItems` of one `search` tool output, found by the citation ids it handed the model. */
export function toolResultItems(sources: AnswerSources): (output: unknown) => SearchResultItem[] {
  return (output) => {
    const returned = (output as { sources?: unknown } | null)?.sources;
    if (!Array.isArray(returned)) return [];
    const byId = new Map(sources.stored.map((s) => [s.id, s]));
    return resultItems(
      (returned as { id: string }[]).flatMap((r) => {
        const stored = byId.get(r.id);
        return stored === undefined ? [] : [stored];
      }),
    );
  };
}
