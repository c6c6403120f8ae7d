import { stemmerNameFor } from './stemmer.ts';
import { tokenize } from './tokenize.ts';

/** Bumped when tokenization changes, so storage knows stored analyses are stale and re-analyzes. */
export const ANALYZER_VERSION = 8;

/**
 * One field's distinct terms and their frequencies, as parallel arrays: as small as an object in JSON,
 * faster to build and to read back, and safe for terms such as `constructor` or `__proto__`.
 */
export type TermCounts = [terms: string[], counts: number[]];

/**
 * What is stored per chunk (as JSON) and read back by `buildSearchIndex`. Kept compact: one small
 * term-count map per field (the title map is short and the headings map shorter), plus field lengths.
 */
export interface AnalyzedChunk {
  v: typeof ANALYZER_VERSION;
  /** Snowball stemmer used (null: none), so queries can be analyzed the same way. */
  s: string | null;
  /** Field lengths in terms: [page title, headings, body]. */
  l: [number, number, number];
  /** Page title terms. */
  t: TermCounts;
  /** Heading breadcrumb terms. */
  h: TermCounts;
  /** Body terms. */
  b: TermCounts;
  /**
   * Adjacent term pairs (`picture mode`) of every field, after stop-word removal: a cheap stand-in for
   * positions, so chunks that use the query's phrases outrank chunks that merely contain its words.
   * Stored as 31-bit hashes (`pairHash`): pairs outnumber words, and numbers are smaller in JSON and far
   * cheaper than fresh strings to look up when the index is built. A rare collision only adds noise.
   */
  p: PairCounts;
}

export type PairCounts = [hashes: number[], counts: number[]];

export interface AnalyzeChunkInput {
  pageTitle: string;
  headings: string[];
  text: string;
  /** The page's language label as the site names it (`en`, `pt-BR`, `ko`); null when unknown. */
  language: string | null;
}

const count = (terms: string[]): TermCounts => {
  const counts = new Map<string, number>();
  for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
  return [[...counts.keys()], [...counts.values()]];
};

/** FNV-1a of `a`, a space, then `b`, folded to 31 bits (a small integer for V8 maps and JSON). */
export const pairHash = (a: string, b: string): number => {
  let h = 0x811c9dc5;
  for (let i = 0; i < a.length; i++) h = Math.imul(h ^ a.charCodeAt(i), 0x01000193);
  h = Math.imul(h ^ 32, 0x01000193);
  for (let i = 0; i < b.length; i++) h = Math.imul(h ^ b.charCodeAt(i), 0x01000193);
  return (h >>> 1) & 0x3fffffff;
};

/** `a b c` → hash(a b), hash(b c); identical neighbours (from identifier splitting) are skipped. */
export const termPairs = (sequence: readonly string[], out: number[] = []): number[] => {
  for (let i = 1; i < sequence.length; i++) {
    const a = sequence[i - 1];
    const b = sequence[i];
    if (a !== undefined && b !== undefined && a !== b) out.push(pairHash(a, b));
  }
  return out;
};

const countPairs = (hashes: number[]): PairCounts => {
  const counts = new Map<number, number>();
  for (const h of hashes) counts.set(h, (counts.get(h) ?? 0) + 1);
  return [[...counts.keys()], [...counts.values()]];
};

export const analyzeChunk = (input: AnalyzeChunkInput): AnalyzedChunk => {
  const stemmer = stemmerNameFor(input.language);
  const title = tokenize(input.pageTitle, stemmer);
  const headings = tokenize(input.headings.join('\n'), stemmer);
  const body = tokenize(input.text, stemmer);
  return {
    v: ANALYZER_VERSION,
    s: stemmer,
    l: [title.length, headings.length, body.length],
    t: count(title),
    h: count(headings),
    b: count(body),
    p: countPairs(termPairs(body, termPairs(headings, termPairs(title)))),
  };
};

const isCounts = (value: unknown): value is TermCounts | PairCounts =>
  Array.isArray(value) &&
  value.length === 2 &&
  Array.isArray(value[0]) &&
  Array.isArray(value[1]) &&
  value[0].length === value[1].length;

/** Narrows stored JSON; anything else (older version, corruption) makes the index re-analyze the text. */
export const isAnalyzedChunk = (value: unknown): value is AnalyzedChunk => {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<AnalyzedChunk>;
  return (
    v.v === ANALYZER_VERSION &&
    (v.s === null || typeof v.s === 'string') &&
    Array.isArray(v.l) &&
    v.l.length === 3 &&
    isCounts(v.t) &&
    isCounts(v.h) &&
    isCounts(v.b) &&
    isCounts(v.p)
  );
};

export interface QueryTerm {
  term: string;
  /** How many times the query says it: repeated words matter more. */
  count: number;
}

export interface AnalyzedQuery {
  stemmer: string | null;
  /** Distinct terms, in first-occurrence order. */
  terms: QueryTerm[];
  /** All terms in reading order. */
  sequence: string[];
  /** Distinct adjacent pair hashes with their counts, matched against the chunks' `p` field. */
  pairs: { hash: number; count: number }[];
}

/** The query analyzed as a chunk of the given language would be, so its terms meet the stored ones. */
export const analyzeQuery = (query: string, language?: string | null): AnalyzedQuery =>
  analyzeQueryWith(query, stemmerNameFor(language));

export const analyzeQueryWith = (query: string, stemmer: string | null): AnalyzedQuery => {
  const sequence = tokenize(query, stemmer);
  const counts = new Map<string, number>();
  for (const term of sequence) counts.set(term, (counts.get(term) ?? 0) + 1);
  const pairCounts = new Map<number, number>();
  for (const hash of termPairs(sequence)) pairCounts.set(hash, (pairCounts.get(hash) ?? 0) + 1);
  return {
    stemmer,
    terms: [...counts].map(([term, n]) => ({ term, count: n })),
    sequence,
    pairs: [...pairCounts].map(([hash, n]) => ({ hash, count: n })),
  };
};
