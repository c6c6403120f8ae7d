import { resolvePage } from './current-path.ts';
import type { SearchIndex } from './search-index.ts';
import { tokenize } from './tokenize.ts';

/**
 * A question about the site as a whole ("What is Docent?", "tell me about Acme" is not: "tell" is a word
 * of its own) is answered from the site's landing page: the product's name is on most of its pages, so
 * it tells the ranking nothing about where the product is introduced. A question is about the site when
 * it has words and every one of them is a word of the site's name, analyzed as the search analyzes text.
 * (A first version took any question whose words were each in a quarter of the chunks: on Docent's own
 * docs "how to search" and "api keys" then found the introduction.)
 */
export function aboutTheSite(
  query: string,
  siteName: string,
  stemmers: readonly (string | null)[],
  queryWords: number,
): boolean {
  for (const stemmer of stemmers.length > 0 ? stemmers : ['english']) {
    const name = nameWords(siteName, stemmer);
    // Every search asks: a question of more distinct words than the name has is not analyzed again.
    if (queryWords === 0 || queryWords > name.size) continue;
    const words = tokenize(query, stemmer);
    if (words.length > 0 && words.every((word) => name.has(word))) return true;
  }
  return false;
}

/** Site names analyzed, per stemmer: a process serves a few sites, each asked about many times. */
const NAMES_KEPT = 1_000;
const names = new Map<string, ReadonlySet<string>>();

function nameWords(siteName: string, stemmer: string | null): ReadonlySet<string> {
  const key = `${stemmer}\u0000${siteName}`;
  let words = names.get(key);
  if (words === undefined) {
    if (names.size >= NAMES_KEPT) names.clear();
    words = new Set(tokenize(siteName, stemmer));
    names.set(key, words);
  }
  return words;
}

/**
 * The landing page for a search: the first of the site's pages in navigation order (`candidates`) that
 * has a chunk the search's version and language filter lets through (`mask`, null: every chunk), so a
 * French question on a site whose first page is English lands on the French introduction.
 */
export function landingPage(
  index: SearchIndex,
  candidates: readonly string[],
  mask: Uint8Array | null,
): number | undefined {
  const order = new Map<number, number>();
  for (const [rank, path] of candidates.entries()) {
    const page = resolvePage(path, index.pageByPath);
    if (page !== undefined && !order.has(page)) order.set(page, rank);
  }
  let best: number | undefined;
  let bestRank = Number.POSITIVE_INFINITY;
  for (let c = 0; c < index.chunkCount; c++) {
    if (mask !== null && mask[c] === 0) continue;
    const page = index.chunkPage[c] ?? 0;
    const rank = order.get(page);
    if (rank !== undefined && rank < bestRank) {
      best = page;
      bestRank = rank;
      if (rank === 0) break;
    }
  }
  return best;
}
