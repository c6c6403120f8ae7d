import type { SearchResult } from '../search/site-search.ts';
import type { RetrievedSource } from './builtin-answerer.ts';

/** Search results numbered for citation: result n (1-based) is cited as `[n]` and sent as `h:` id `'n'`. */
export function toRetrievedSources(results: readonly SearchResult[]): RetrievedSource[] {
  return results.map((r, i) => ({
    id: String(i + 1),
    pageTitle: r.title,
    headings: r.breadcrumbs.slice(1),
    url: r.url,
    text: r.text,
    score: r.score,
  }));
}
