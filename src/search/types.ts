/**
 * The search engine's inputs and outputs. The engine is in-process and pure: storage keeps the
 * analyzed chunks (computed once at ingestion), and a per-site index is assembled from them.
 */

/** One chunk as stored, with what the engine needs to rank and filter it. */
export interface IndexableChunk {
  /** Stable numeric key of the stored chunk. */
  id: number;
  pagePath: string;
  pageTitle: string;
  /** Headings under the page title, outermost first. */
  headings: string[];
  text: string;
  versions: string[];
  languages: string[];
  /** Output of `analyzeChunk`, or its JSON text as storage keeps it. */
  analyzed: unknown;
}

export interface SearchOptions {
  /** Number of chunks to return. */
  limit: number;
  version?: string | undefined;
  language?: string | undefined;
  /**
   * Without a `language`: the text whose language the search takes (questionLanguageLabel), when the
   * query holds more than the question (a previous question, selected code). Default: the query.
   */
  languageOf?: string | undefined;
  /** Page the reader is on (a page id or URL path); boosts that page and its neighbours. */
  currentPath?: string | undefined;
  /**
   * The site's name and its first pages in navigation order: a question whose words are all words of the
   * name ("What is Docent?") is answered from the first of those pages the filters let through first
   * (site-landing.ts). SiteSearch fills it from the stored site.
   */
  landing?: { siteName: string; pages: readonly string[] } | undefined;
}

export interface SearchHit {
  chunkId: number;
  pagePath: string;
  score: number;
  /**
   * Share (0–1) of the query's IDF-weighted words found in the chunk (page title, headings, text): an
   * absolute measure of how much of the question the chunk speaks to, where `score` is relative.
   */
  coverage: number;
}
