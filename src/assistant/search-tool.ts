import { type Tool, tool } from 'ai';
import { z } from 'zod';
import type { SearchResult } from '../search/site-search.ts';
import { type SearchResultItem, type SourceList, searchItems, sectionTitle } from './answer-sources.ts';

/** Longest query a model may send to the `search` tool. */
export const MAX_TOOL_QUERY_CHARS = 500;

/** What the model gets back from one search: numbered excerpts, or why there are none. */
export type SearchToolOutput =
  | { sources: { id: string; title: string; url: string; path: string; text: string }[] }
  | { error: string };

/**
 * The `search` tool a real model may call when the excerpts it was given do not answer the question.
 * New chunks join `sources` (numbered there), so `[n]` in the answer always names one source. After
 * `steps` searches it answers with an instruction to answer.
 */
export function searchTool(options: {
  steps: number;
  sources: SourceList;
  search: (query: string) => Promise<SearchResult[]>;
}): Tool<{ query: string }, SearchToolOutput> {
  let used = 0;
  return tool({
    description:
      "Search this documentation site. Call it only when the excerpts you have do not answer the question; pass a short query in the documentation's own words.",
    inputSchema: z.object({ query: z.string().min(1).max(MAX_TOOL_QUERY_CHARS) }),
    execute: async ({ query }): Promise<SearchToolOutput> => {
      used++;
      if (used > options.steps) return { error: 'No more searches: answer from the excerpts you have.' };
      const found = await options.search(query);
      return {
        sources: found.map((r) => {
          const source = options.sources.add(r);
          return {
            id: source.id,
            title: sectionTitle(source),
            url: source.url,
            path: source.path,
            text: r.text,
          };
        }),
      };
    },
  });
}

/** The pages of one `search` tool output, found by the citation ids it handed the model. */
export function toolResultItems(sources: SourceList): (output: unknown) => SearchResultItem[] {
  return (output) => {
    const returned = (output as { sources?: unknown } | null)?.sources;
    if (!Array.isArray(returned)) return [];
    return searchItems(sources.pick((returned as { id: string }[]).map((r) => r.id)));
  };
}
