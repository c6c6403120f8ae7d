import { longFormTerms } from './abbreviations.ts';
import {
  ANALYZER_VERSION,
  type AnalyzedChunk,
  analyzeChunk,
  analyzeQueryWith,
  isAnalyzedChunk,
} from './analyze.ts';
import { resolvePage } from './current-path.ts';
import { SearchIndexBuilder } from './index-builder.ts';
import type { PairLookup, StringTable, WordTable } from './index-tables.ts';
import { aboutTheSite, landingPage } from './site-landing.ts';
import { stemmerNameFor } from './stemmer.ts';
import { writtenIn } from './stop-words.ts';
import type { IndexableChunk, SearchHit, SearchOptions } from './types.ts';

/** One field's BM25F parameters: its weight in the combined term frequency and its length normalisation. */
export interface FieldParams {
  weight: number;
  b: number;
}

/**
 * Fields in the order they are stored: page title, heading breadcrumbs, body, and adjacent term pairs
 * (normalised against the whole chunk's length).
 */
export type FieldSet = readonly [FieldParams, FieldParams, FieldParams, FieldParams];

export interface RankingParams {
  /** Term-frequency saturation. */
  k1: number;
  fields: FieldSet;
  /**
   * Share of a chunk's final score that comes from its page (both scaled to the query's best):
   * evaluation and answers are page-level, and a page that answers the question in two sections is a
   * better source than one stray chunk that happens to repeat a word.
   */
  pageWeight: number;
  /** A page's score is its best chunk's plus this share of its second best. */
  secondChunkWeight: number;
  /** Query-side weight of an adjacent query-term pair relative to a single term. */
  pairWeight: number;
  /** Multiplicative boost of chunks on the reader's current page, and on pages in the same folder. */
  currentPageBoost: number;
  siblingBoost: number;
  /** Query words (5+ characters) missing from the vocabulary match terms one edit away (typos). */
  fuzzy: boolean;
  /** Pseudo-relevance feedback: first-pass chunks read, terms added, and their weight (0 docs: off). */
  feedbackDocs: number;
  feedbackTerms: number;
  feedbackWeight: number;
}

/**
 * Defaults chosen on the claude-docs and tv-manual eval sets (bench/search-quality.ts), one principled
 * knob at a time, keeping only changes that helped both sets and both halves of each.
 */
export const DEFAULT_RANKING: RankingParams = {
  k1: 1.2,
  fields: [
    { weight: 3, b: 0.3 },
    { weight: 2, b: 0.3 },
    { weight: 1, b: 0.6 },
    { weight: 1, b: 0.6 },
  ],
  pageWeight: 0.5,
  secondChunkWeight: 0.5,
  pairWeight: 0.5,
  currentPageBoost: 0.05,
  siblingBoost: 0.02,
  fuzzy: true,
  // Off: it lowered hit@1 on tv-manual (short questions drift towards the first hit's topic).
  feedbackDocs: 0,
  feedbackTerms: 10,
  feedbackWeight: 0.3,
};

/**
 * A term → postings inverted file in CSR form. Each posting stores the already-saturated BM25F term
 * weight `tf~ / (k1 + tf~)`, so a query only multiplies by IDF and adds.
 */
export interface Postings {
  offsets: Uint32Array;
  docs: Uint32Array;
  weights: Float32Array;
  idf: Float32Array;
}

/** The same triples by document (chunk → its terms), for pseudo-relevance feedback. */
export interface Forward {
  offsets: Uint32Array;
  terms: Uint32Array;
  weights: Float32Array;
}

interface FilterMasks {
  chunks: Uint8Array | null;
}

/** One distinct pair of version and language labels, as the chunks carry them and lowercased. */
export interface LabelSet {
  versions: string[];
  languages: string[];
}

/**
 * A site's search index: typed arrays and a few short lists, no object per chunk or term. Chunk `c`
 * is the `c`-th chunk given to the builder; its text lives in storage (or with the caller), not here.
 */
export interface SearchIndex {
  readonly params: RankingParams;
  /** Word → term id and back; pairs share the id space (and postings) with words. */
  readonly words: WordTable;
  /** Pair hash → term id. */
  readonly pairs: PairLookup;
  /** Stemmers the chunks were analyzed with: a query without a language is analyzed with each. */
  readonly stemmers: readonly (string | null)[];
  readonly chunkCount: number;
  readonly chunkIds: Uint32Array;
  /** The chunk's place in its page (storage's `ord`), for reading its text back. */
  readonly chunkOrd: Uint32Array;
  /** Index into `paths`: the page path exactly as the chunk gave it. */
  readonly chunkPath: Uint32Array;
  readonly paths: StringTable;
  readonly pathTitles: StringTable;
  /** Index into `labelSets`. */
  readonly chunkLabels: Uint32Array;
  readonly labelSets: readonly LabelSet[];
  /** The ranking's page of each path: paths that normalise alike (`guide`, `Guide.mdx`) are one page. */
  readonly pathPage: Uint32Array;
  /** The ranking's page of each chunk (its path's). */
  readonly chunkPage: Uint32Array;
  readonly pageCount: number;
  /** The first path of each page, as hits name it. */
  readonly pagePaths: StringTable;
  readonly pageParent: Uint32Array;
  /** Each page's normalised path (`normalizePagePath`), looked up by it. */
  readonly pageByPath: StringTable;
  readonly postings: Postings;
  readonly forward: Forward;
  /** Per-filter masks, computed on first use: a site has few distinct version × language filters. */
  readonly filterCache: Map<string, FilterMasks>;
  /** Reused per query (search is synchronous), so a query allocates nothing per document. */
  readonly scratch: Scratch;
}

export interface Scratch {
  chunkScores: Float32Array;
  chunkTouched: Uint32Array;
  pageBest: Float32Array;
  pageSecond: Float32Array;
  pageTouched: Uint32Array;
}

const lowerLabels = (labels: readonly string[]): string[] => labels.map((l) => l.trim().toLowerCase());

const parsedAnalysis = (stored: unknown): unknown => {
  if (typeof stored !== 'string') return stored;
  try {
    return JSON.parse(stored);
  } catch {
    return null;
  }
};

/**
 * Stored analysis (parsed here when it is storage's JSON text, one chunk at a time, so a big site's
 * analyses are never all parsed at once), or a fresh one if storage holds none (or an older analyzer
 * version's).
 */
export const analysisOf = (chunk: IndexableChunk): AnalyzedChunk => {
  const stored = parsedAnalysis(chunk.analyzed);
  return isAnalyzedChunk(stored)
    ? stored
    : analyzeChunk({
        pageTitle: chunk.pageTitle,
        headings: chunk.headings,
        text: chunk.text,
        language: chunk.languages[0] ?? null,
      });
};

/** Adds a chunk to a build: by its stored analysis's text when the builder reads it, else by `analysisOf`. */
export const addChunk = (builder: SearchIndexBuilder, chunk: IndexableChunk, ord = 0): void => {
  if (!builder.addStored(chunk, ord)) builder.addAnalyzed(chunk, analysisOf(chunk), ord);
};

export const buildSearchIndex = (
  chunks: readonly IndexableChunk[],
  params: RankingParams = DEFAULT_RANKING,
): SearchIndex => {
  const builder = new SearchIndexBuilder(params, ANALYZER_VERSION);
  for (const chunk of chunks) addChunk(builder, chunk);
  return builder.finish();
};

/** Bytes the index holds: its arrays, plus an estimate for its few strings. */
export const indexBytes = (index: SearchIndex): number => {
  let bytes = 0;
  const add = (a: { byteLength: number }): void => {
    bytes += a.byteLength;
  };
  for (const a of Object.values(index.words.arrays)) add(a);
  add(index.pairs.keys);
  add(index.pairs.values);
  for (const a of [
    index.chunkIds,
    index.chunkOrd,
    index.chunkPath,
    index.chunkLabels,
    index.chunkPage,
    index.pathPage,
  ])
    add(a);
  add(index.pageParent);
  for (const a of Object.values(index.postings)) add(a);
  for (const a of Object.values(index.forward)) add(a);
  for (const a of Object.values(index.scratch)) add(a);
  for (const table of [index.paths, index.pathTitles, index.pagePaths, index.pageByPath])
    for (const a of Object.values(table.arrays)) add(a);
  return bytes;
};

/**
 * The site's language label a requested language filters by (lowercased): itself when a page carries
 * it; else the site's label of the same primary subtag (`en-us` from a page's `<html lang>` → `en`,
 * `pt` → `pt-br`); else none, so a reader whose language the docs lack still searches the languages
 * they have rather than finding nothing.
 */
export const siteLanguageLabel = (index: SearchIndex, asked: string | undefined): string | null => {
  const requested = asked?.trim().toLowerCase() || null;
  if (requested === null) return null;
  const labels = new Set(index.labelSets.flatMap((set) => lowerLabels(set.languages)));
  if (labels.has(requested)) return requested;
  const primary = (tag: string) => tag.split(/[-_]/)[0];
  for (const label of labels) if (primary(label) === primary(requested)) return label;
  return null;
};

/** The versions and languages a site's pages carry: the values its filters can name. */
export interface SiteLabels {
  readonly versions: readonly string[];
  readonly languages: readonly string[];
}

const distinctLabels = (labels: readonly string[]): string[] =>
  [...new Set(labels.map((l) => l.trim()).filter((l) => l !== ''))].sort((a, b) =>
    a.localeCompare(b, 'en', { numeric: true }),
  );

/**
 * Most characters of label values a list names (every one, on most sites); past it, a count of the
 * rest. The same list in an unknown version's error and in the MCP tools' descriptions.
 */
const MAX_LISTED_LABEL_CHARS = 1_000;

/** Labels as a reader lists them: `v1, v2`; one holding a comma, a quote or a line break as JSON. */
export const listLabels = (labels: readonly string[]): string => {
  let text = '';
  let listed = 0;
  for (const label of labels) {
    const shown = /[,"\n\r]/.test(label) ? JSON.stringify(label) : label;
    const next = listed === 0 ? shown : `${text}, ${shown}`;
    if (listed > 0 && next.length > MAX_LISTED_LABEL_CHARS) break;
    text = next;
    listed++;
  }
  return listed < labels.length ? `${text} and ${labels.length - listed} more` : text;
};

/** A loaded index's labels, with each language label's stemmer: worked out once per index. */
interface IndexLabels {
  labels: SiteLabels;
  /** Language labels by their stemmer's name (`french` → [`fr`]), the languages a question may be told. */
  byStemmer: ReadonlyMap<string, readonly string[]>;
  /** The stemmers a question's language is told among: English (often unlabelled) and the labels'. */
  told: readonly string[];
}

const labelsOfIndex = new WeakMap<SearchIndex, IndexLabels>();

const indexLabels = (index: SearchIndex): IndexLabels => {
  let known = labelsOfIndex.get(index);
  if (known === undefined) {
    // Frozen: every caller of this index shares the one object.
    const labels = Object.freeze({
      versions: Object.freeze(distinctLabels(index.labelSets.flatMap((set) => set.versions))),
      languages: Object.freeze(distinctLabels(index.labelSets.flatMap((set) => set.languages))),
    });
    const byStemmer = new Map<string, string[]>();
    for (const label of labels.languages) {
      const stemmer = stemmerNameFor(label);
      if (stemmer !== null) byStemmer.set(stemmer, [...(byStemmer.get(stemmer) ?? []), label]);
    }
    known = { labels, byStemmer, told: [...new Set(['english', ...byStemmer.keys()])] };
    labelsOfIndex.set(index, known);
  }
  return known;
};

export const siteLabels = (index: SearchIndex): SiteLabels => indexLabels(index).labels;

/**
 * A version filter as the site spells it: matched trimmed and in any case, so that `V2` and ` v2 `
 * search, label results and are stored as `v2`. `unknown` (with the site's versions) when the site has
 * versions and none is the one asked for: a version filter has no fallback, unlike a language one, as a
 * misspelt version would otherwise find only the unversioned pages and an answer would decline with no
 * word of why. A site without versions takes any version (it filters nothing), trimmed; a blank one is
 * no filter.
 */
export const siteVersionLabel = (
  index: SearchIndex,
  asked: string | null | undefined,
): { version: string | undefined } | { unknown: readonly string[] } => {
  const trimmed = asked?.trim() ?? '';
  if (trimmed === '') return { version: undefined };
  const { versions } = siteLabels(index);
  if (versions.length === 0) return { version: trimmed };
  const wanted = trimmed.toLowerCase();
  const own = versions.find((v) => v.toLowerCase() === wanted);
  return own === undefined ? { unknown: versions } : { version: own };
};

/**
 * The site's language label a question without a language filter is searched in: the one of the
 * language it is written in (`writtenIn`, by its function words), as the widget's reader's page
 * language would be; undefined when the site has no language labels, the language is not clear, or the
 * site has no label for it (English questions on a site whose English pages carry no label) or two
 * (`pt-BR` and `pt-PT`).
 */
export const questionLanguageLabel = (index: SearchIndex, question: string): string | undefined => {
  const { labels, byStemmer, told } = indexLabels(index);
  if (labels.languages.length === 0) return undefined;
  const written = writtenIn(question, told);
  const variants = written === null ? undefined : byStemmer.get(written);
  // Two variants of the language (`pt-BR`, `pt-PT`): which one the reader reads is not in the words.
  return variants?.length === 1 ? variants[0] : undefined;
};

/** A chunk passes a filter value when it carries that label, or carries no label of that kind. */
const passes = (labels: readonly string[], wanted: string | null): boolean =>
  wanted === null || labels.length === 0 || lowerLabels(labels).includes(wanted);

/** Whether chunks with these labels pass a (lowercased) version and language filter. */
const labelsPass = (set: LabelSet, version: string | null, language: string | null): boolean =>
  passes(set.versions, version) && passes(set.languages, language);

/** Whether chunk `c` passes a filter, as `searchIndex` applies it (for rankings fused with its own). */
export const chunkPassesFilter = (
  index: SearchIndex,
  c: number,
  version: string | null,
  language: string | null,
): boolean => {
  const set = index.labelSets[index.chunkLabels[c] ?? 0];
  return set === undefined || labelsPass(set, version, language);
};

const filterMasks = (index: SearchIndex, version: string | null, language: string | null): FilterMasks => {
  if (version === null && language === null) return { chunks: null };
  const key = `${version ?? ''}\u0000${language ?? ''}`;
  let masks = index.filterCache.get(key);
  if (!masks) {
    const setPasses = index.labelSets.map((set) => labelsPass(set, version, language));
    const chunks = new Uint8Array(index.chunkCount);
    for (let c = 0; c < chunks.length; c++) chunks[c] = setPasses[index.chunkLabels[c] ?? 0] ? 1 : 0;
    masks = { chunks };
    index.filterCache.set(key, masks);
  }
  return masks;
};

/** Query weight of a short form's long-form words ("environment" for "env"), relative to a word's own. */
const LONG_FORM_WEIGHT = 0.7;

/** One distinct word of the query for `coverage`: the term ids it may match and how much it weighs. */
interface CoverageTerm {
  ids: number[];
  weight: number;
}

/**
 * A query analyzed once with each candidate stemmer: its weighted term ids for ranking, merged across
 * stemmers, and its words as `coverage` weighs them, one list per stemmer. A word the site never uses
 * (and no typo of one) weighs as much as a word in no chunk can, the most of all: a question about
 * something the docs never mention is exactly what weak retrieval should catch.
 */
const queryTerms = (
  index: SearchIndex,
  query: string,
  language: string | undefined,
): { weights: Map<number, number>; coverage: CoverageTerm[][] } => {
  const stemmers = language !== undefined ? [stemmerNameFor(language)] : index.stemmers;
  const weights = new Map<number, number>();
  const coverage: CoverageTerm[][] = [];
  const add = (id: number, weight: number): void => {
    if (weight > 0) weights.set(id, Math.max(weights.get(id) ?? 0, weight));
  };
  const { idf } = index.postings;
  const unseenIdf = Math.log(1 + (index.chunkCount + 0.5) / 0.5);
  for (const stemmer of stemmers.length > 0 ? stemmers : ['english']) {
    const analyzed = analyzeQueryWith(query, stemmer);
    for (const { hash, count } of analyzed.pairs) {
      const id = index.pairs.get(hash);
      if (id !== undefined) add(id, count * index.params.pairWeight);
    }
    const words: CoverageTerm[] = [];
    for (const { term, count } of analyzed.terms) {
      const id = index.words.get(term);
      // A short form ("env", "repo") also finds its long form's words, a little below the word itself.
      const long: number[] = [];
      for (const t of longFormTerms(term, stemmer)) {
        const longId = index.words.get(t);
        if (longId === undefined) continue;
        long.push(longId);
        add(longId, LONG_FORM_WEIGHT * count);
      }
      if (id !== undefined || long.length > 0) {
        if (id !== undefined) add(id, count);
        const ids = id === undefined ? long : [id, ...long];
        let weight = 0;
        for (const t of ids) weight = Math.max(weight, idf[t] ?? 0);
        words.push({ ids, weight });
        continue;
      }
      // A typo ("serch") matches nothing; its one-edit neighbours share its weight, at a discount.
      const matches = index.params.fuzzy && term.length >= 5 ? index.words.oneEditNeighbours(term) : [];
      for (const t of matches) add(t, (0.7 * count) / matches.length);
      let weight = matches.length === 0 ? unseenIdf : 0;
      for (const t of matches) weight = Math.max(weight, idf[t] ?? 0);
      words.push({ ids: matches, weight });
    }
    coverage.push(words);
  }
  return { weights, coverage };
};

interface Ranked {
  docs: Uint32Array;
  scores: Float64Array;
  size: number;
}

interface Pass {
  mask: Uint8Array | null;
  current: number | undefined;
  /** The landing page, boosted: set only for a question about the site as a whole (site-landing.ts). */
  landing: number | undefined;
}

/**
 * Multiplicative boosts of the landing page for a question about the whole site (site-landing.ts): its
 * opening section (chunk 0, before its first heading when it has text there, where a product says what
 * it is) and its other sections.
 */
const LANDING_OPENING_BOOST = 1;
const LANDING_BOOST = 0.5;

/**
 * One scoring pass: BM25F chunk scores, page scores from the page's best two chunks, both scaled to
 * the query's best and blended; the current-page nudge; the best `k` kept in a min-heap (no full sort).
 */
const rank = (index: SearchIndex, qterms: ReadonlyMap<number, number>, k: number, pass: Pass): Ranked => {
  const { chunkScores, chunkTouched, pageBest, pageSecond, pageTouched } = index.scratch;
  const { offsets, docs: postingDocs, weights, idf } = index.postings;
  const { pageWeight, secondChunkWeight, currentPageBoost, siblingBoost } = index.params;
  const mask = pass.mask;

  let touched = 0;
  for (const [term, qweight] of qterms) {
    const w = (idf[term] ?? 0) * qweight;
    const end = offsets[term + 1] ?? 0;
    for (let i = offsets[term] ?? 0; i < end; i++) {
      const doc = postingDocs[i] ?? 0;
      if (mask !== null && mask[doc] === 0) continue;
      const prev = chunkScores[doc] ?? 0;
      if (prev === 0) chunkTouched[touched++] = doc;
      chunkScores[doc] = prev + w * (weights[i] ?? 0);
    }
  }

  let chunkMax = 0;
  let pages = 0;
  for (let i = 0; i < touched; i++) {
    const c = chunkTouched[i] ?? 0;
    const p = index.chunkPage[c] ?? 0;
    const s = chunkScores[c] ?? 0;
    chunkMax = Math.max(chunkMax, s);
    const best = pageBest[p] ?? 0;
    if (best === 0) {
      pageTouched[pages++] = p;
      pageBest[p] = s;
    } else if (s > best) {
      pageSecond[p] = best;
      pageBest[p] = s;
    } else if (s > (pageSecond[p] ?? 0)) {
      pageSecond[p] = s;
    }
  }
  let pageMax = 0;
  for (let i = 0; i < pages; i++) {
    const p = pageTouched[i] ?? 0;
    const total = (pageBest[p] ?? 0) + secondChunkWeight * (pageSecond[p] ?? 0);
    pageBest[p] = total;
    pageMax = Math.max(pageMax, total);
  }

  const current = pass.current;
  const currentParent = current === undefined ? undefined : index.pageParent[current];
  const chunkScale = chunkMax > 0 ? (1 - pageWeight) / chunkMax : 0;
  const pageScale = pageMax > 0 ? pageWeight / pageMax : 0;
  const docs = new Uint32Array(Math.min(k, touched));
  const scores = new Float64Array(docs.length);
  let size = 0;
  for (let i = 0; i < touched; i++) {
    const c = chunkTouched[i] ?? 0;
    const page = index.chunkPage[c] ?? 0;
    let score = (chunkScores[c] ?? 0) * chunkScale + (pageBest[page] ?? 0) * pageScale;
    if (page === pass.landing) score *= 1 + (index.chunkOrd[c] === 0 ? LANDING_OPENING_BOOST : LANDING_BOOST);
    // Multiplicative and small: it reorders only results already within a few percent of each other.
    if (current !== undefined) {
      if (page === current) score *= 1 + currentPageBoost;
      else if (index.pageParent[page] === currentParent) score *= 1 + siblingBoost;
    }
    if (size < docs.length) {
      let at = size++;
      while (at > 0) {
        const parent = (at - 1) >> 1;
        if ((scores[parent] ?? 0) <= score) break;
        docs[at] = docs[parent] ?? 0;
        scores[at] = scores[parent] ?? 0;
        at = parent;
      }
      docs[at] = c;
      scores[at] = score;
    } else if (score > (scores[0] ?? 0)) {
      let at = 0;
      for (;;) {
        const left = 2 * at + 1;
        if (left >= size) break;
        const right = left + 1;
        const child = right < size && (scores[right] ?? 0) < (scores[left] ?? 0) ? right : left;
        if ((scores[child] ?? 0) >= score) break;
        docs[at] = docs[child] ?? 0;
        scores[at] = scores[child] ?? 0;
        at = child;
      }
      docs[at] = c;
      scores[at] = score;
    }
  }

  // Reset only what this pass touched, leaving the scratch arrays zeroed for the next one.
  for (let i = 0; i < touched; i++) chunkScores[chunkTouched[i] ?? 0] = 0;
  for (let i = 0; i < pages; i++) {
    pageBest[pageTouched[i] ?? 0] = 0;
    pageSecond[pageTouched[i] ?? 0] = 0;
  }
  return { docs, scores, size };
};

/**
 * Pseudo-relevance feedback (RM3-like): terms that weigh most in the best first-pass chunks are added
 * to the query at a fraction of its weight, for questions that name a feature differently from its page.
 */
const expand = (index: SearchIndex, qterms: Map<number, number>, top: Ranked): Map<number, number> => {
  const { feedbackTerms, feedbackWeight } = index.params;
  const { offsets, terms, weights } = index.forward;
  const { idf } = index.postings;
  let maxScore = 0;
  for (let i = 0; i < top.size; i++) maxScore = Math.max(maxScore, top.scores[i] ?? 0);
  if (!(maxScore > 0)) return qterms;
  const candidates = new Map<number, number>();
  for (let i = 0; i < top.size; i++) {
    const c = top.docs[i] ?? 0;
    const docWeight = (top.scores[i] ?? 0) / maxScore;
    for (let j = offsets[c] ?? 0; j < (offsets[c + 1] ?? 0); j++) {
      const t = terms[j] ?? 0;
      if (qterms.has(t) || index.words.isPair(t)) continue;
      candidates.set(t, (candidates.get(t) ?? 0) + docWeight * (weights[j] ?? 0) * (idf[t] ?? 0));
    }
  }
  const best = [...candidates].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, feedbackTerms);
  const top1 = best[0]?.[1] ?? 0;
  if (top1 <= 0) return qterms;
  const expanded = new Map(qterms);
  for (const [t, w] of best) expanded.set(t, (feedbackWeight * w) / top1);
  return expanded;
};

/** Whether chunk `c` has term `t`: postings are in chunk order, so a binary search. */
const chunkHasTerm = (index: SearchIndex, t: number, c: number): boolean => {
  const { offsets, docs } = index.postings;
  let lo = offsets[t] ?? 0;
  let hi = (offsets[t + 1] ?? 0) - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const d = docs[mid] ?? 0;
    if (d === c) return true;
    if (d < c) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
};

/**
 * Share (0–1) of the query's IDF weight whose words chunk `c` has in its page title, headings or text,
 * for the best-scoring of the query's analyses. Unlike `score`, which is relative to the query's best
 * result, this is absolute: it says how much of the question the chunk speaks to at all.
 */
const coverageOf = (index: SearchIndex, analyses: readonly CoverageTerm[][], c: number): number => {
  let best = 0;
  for (const terms of analyses) {
    let total = 0;
    let found = 0;
    for (const term of terms) {
      total += term.weight;
      if (term.ids.some((t) => chunkHasTerm(index, t, c))) found += term.weight;
    }
    if (total > 0) best = Math.max(best, found / total);
  }
  return best;
};

/**
 * Ranks chunks for a query: BM25F (with phrase pairs) over chunks blended with their page's evidence,
 * filtered by version/language, nudged towards the reader's current page; best `limit` chunks first.
 */
export const searchIndex = (index: SearchIndex, query: string, options: SearchOptions): SearchHit[] => {
  const limit = Math.max(0, Math.floor(options.limit));
  if (limit === 0 || index.chunkCount === 0) return [];
  // The site's label the requested language selects, if any: the query is stemmed as the pages it
  // searches are (a German reader of English docs searches them as English).
  const language = siteLanguageLabel(index, options.language);
  const analyzed = queryTerms(index, query, language ?? undefined);
  let qterms = analyzed.weights;
  if (qterms.size === 0) return [];

  const version = options.version?.trim().toLowerCase() || null;
  const mask = filterMasks(index, version, language).chunks;
  const { landing } = options;
  const pass: Pass = {
    mask,
    current: options.currentPath ? resolvePage(options.currentPath, index.pageByPath) : undefined,
    landing:
      landing !== undefined &&
      landing.pages.length > 0 &&
      aboutTheSite(
        query,
        landing.siteName,
        language !== null ? [stemmerNameFor(language)] : index.stemmers,
        Math.min(...analyzed.coverage.map((words) => words.length)),
      )
        ? landingPage(index, landing.pages, mask)
        : undefined,
  };
  if (index.params.feedbackDocs > 0 && index.params.feedbackTerms > 0) {
    // Feedback ignores the current page: it should learn the question's vocabulary, not the reader's.
    qterms = expand(
      index,
      qterms,
      rank(index, qterms, index.params.feedbackDocs, { ...pass, current: undefined, landing: undefined }),
    );
  }
  const ranked = rank(index, qterms, limit, pass);

  const hits: SearchHit[] = [];
  for (let i = 0; i < ranked.size; i++) {
    const c = ranked.docs[i] ?? 0;
    hits.push({
      chunkId: index.chunkIds[c] ?? 0,
      pagePath: index.pagePaths.at(index.chunkPage[c] ?? 0),
      score: ranked.scores[i] ?? 0,
      coverage: coverageOf(index, analyzed.coverage, c),
    });
  }
  // Ties broken by chunk id so results are deterministic across storage dialects.
  return hits.sort((a, b) => b.score - a.score || a.chunkId - b.chunkId);
};
