/**
 * Grouping readers' questions into topics, so an owner sees "12 people asked how to rotate keys" once
 * instead of twelve differently worded questions. Deterministic and incremental: each question, when
 * it is stored, joins the most similar of its site's recent groups or starts a new one; nothing is
 * ever re-clustered.
 *
 * A question is its set of content terms, analyzed as the search analyzes text (src/search/tokenize.ts:
 * stop words dropped, Snowball-stemmed, identifiers split), each weighted by its rarity among the site's
 * groups (IDF; everyday words weigh less still). A group keeps a profile: each term and how many of its
 * questions have it. A question's similarity to a group is the weighted Dice coefficient it has, on
 * average, with the group's questions (estimated from the profile); typos of longer words match
 * (`rotaiton` ~ `rotation`). It joins the best group at or above `GROUP_SIMILARITY_THRESHOLD`, else
 * starts one. Only the `MAX_GROUP_CANDIDATES` groups sharing the most weight with it are scored, so a
 * question costs about the same on a site with ten groups or ten thousand.
 *
 * This file is pure (no storage); `question-grouper.ts` keeps one `GroupIndex` per site over the database.
 */
import { longFormTerms } from '../search/abbreviations.ts';
import { withinOneEdit } from '../search/one-edit.ts';
import { stemmerNameFor } from '../search/stemmer.ts';
import { tokenize } from '../search/tokenize.ts';

/** Similarity a question needs to join a group (chosen on eval/question-groups, see its README). */
export const GROUP_SIMILARITY_THRESHOLD = 0.4;
/** Groups scored per question: those sharing the most terms with it, so the cost is bounded. */
export const MAX_GROUP_CANDIDATES = 8;
/** Groups gathered as candidates before commoner terms stop adding more (see `#best`). */
const CANDIDATE_POOL = 16;
/** Terms a group's profile keeps (its most frequent): enough for any question, small to store. */
export const MAX_SIGNATURE_TERMS = 32;
/** Terms of a question that count; a pasted stack trace must not cost more than a question. */
export const MAX_QUESTION_TERMS = 24;
/** Terms shorter than this match only exactly: `api` and `apt` are different words. */
const MIN_FUZZY_TERM = 5;
/** Groups assumed to exist, none with the term, when weighing terms: keeps IDF sane on a new site. */
const IDF_PRIOR_GROUPS = 10;
/** Weight of an everyday word relative to a topical one. */
const GENERIC_WEIGHT = 0.4;

/**
 * Words that say little about a question's topic: what readers wrap every question in ("how do I use
 * …", "is there a way to …") and words every docs site uses. Stems, as `tokenize` makes them.
 */
const GENERIC_TERMS = new Set(
  `abl add allow anyth avail best build call chang check configur creat default differ doc document enabl
  exampl find fine get give go good guid happen help know like look make mean need new possibl problem
  question right run see set setup show someth start support tell thing tri understand use user want way
  work wrong`
    .split(/\s+/)
    .filter((word) => word.length > 0),
);

/** The distinct content terms of a question, in order of first use, analyzed as the site's search would. */
export function questionTerms(question: string, language?: string | null): string[] {
  const stemmer = stemmerNameFor(language);
  const seen = new Set<string>();
  for (const term of tokenize(question, stemmer)) {
    if (seen.size >= MAX_QUESTION_TERMS) break;
    // "repo" and "repository" are one word to a group: a short form stands for its long form's first word.
    seen.add(longFormTerms(term, stemmer)[0] ?? term);
  }
  return [...seen];
}

/** A group's profile as stored (`question_groups.signature`, JSON): terms, how many questions have each, questions. */
export interface GroupSignature {
  t: string[];
  c: number[];
  n: number;
}

export function parseSignature(text: string): GroupSignature {
  const value = JSON.parse(text) as Partial<GroupSignature>;
  const t = Array.isArray(value.t) ? value.t.filter((x): x is string => typeof x === 'string') : [];
  const c = Array.isArray(value.c) ? value.c.map((x) => Math.max(1, Number(x) || 1)) : [];
  return { t, c: t.map((_, i) => c[i] ?? 1), n: Math.max(1, Number(value.n) || 1) };
}

export const SOURCE_PREFIX = '\u00a7';
const fuzzy = (term: string): boolean => term.length >= MIN_FUZZY_TERM && !term.startsWith(SOURCE_PREFIX);

/** Typos of longer words (one insertion, deletion, substitution or transposition) match. */
function termsMatch(a: string, b: string): boolean {
  if (a === b) return true;
  if (!fuzzy(a) || !fuzzy(b)) return false;
  return withinOneEdit(a, b);
}

/**
 * Keys a term is found under: itself and, for longer words, every one-letter deletion (two words one
 * edit apart always share one: SymSpell's trick), so typos find their groups without a scan.
 */
function keysOf(term: string): readonly string[] {
  if (!fuzzy(term)) return [term];
  let keys = keyCache.get(term);
  if (keys === undefined) {
    const set = new Set([term]);
    for (let i = 0; i < term.length; i++) set.add(`${term.slice(0, i)}${term.slice(i + 1)}\u0001`);
    keys = [...set];
    // Bounded: cleared when full, as the stemmer's memo is.
    if (keyCache.size >= KEY_CACHE_TERMS) keyCache.clear();
    keyCache.set(term, keys);
  }
  return keys;
}

/** Terms whose keys are kept ready: a site's questions reuse a vocabulary of a few thousand words. */
const KEY_CACHE_TERMS = 50_000;
const keyCache = new Map<string, readonly string[]>();

interface Group {
  id: string;
  /** Term → questions of the group that have it (or a typo of it). */
  counts: Map<string, number>;
  n: number;
  /** Order of last use: larger is more recent. */
  touched: number;
}

export interface Assignment {
  groupId: string;
  /** True when the question started the group. */
  created: boolean;
  /** The group's profile after the question joined, to store. */
  signature: GroupSignature;
}

/** One site's groups in memory, most recently used kept, with the term keys that find candidates. */
export class GroupIndex {
  readonly #groups = new Map<string, Group>();
  readonly #keys = new Map<string, Set<string>>();
  /** Groups in memory whose profile has each term: a term's IDF is over groups (topics), not questions. */
  readonly #df = new Map<string, number>();
  #clock = 0;

  readonly #threshold: number;
  readonly #sourceWeight: number;
  readonly #genericWeight: number;

  constructor(
    private readonly maxGroups = Number.POSITIVE_INFINITY,
    options: { threshold?: number; sourceWeight?: number; genericWeight?: number } = {},
  ) {
    this.#threshold = options.threshold ?? GROUP_SIMILARITY_THRESHOLD;
    this.#sourceWeight = options.sourceWeight ?? 1;
    this.#genericWeight = options.genericWeight ?? GENERIC_WEIGHT;
  }

  get size(): number {
    return this.#groups.size;
  }

  /** Adds a stored group, as loaded from the database (oldest first, so the newest count as recent). */
  load(id: string, signature: GroupSignature): void {
    const counts = new Map<string, number>();
    signature.t.forEach((term, i) => {
      counts.set(term, signature.c[i] ?? 1);
    });
    for (const term of counts.keys()) this.#index(id, term);
    this.#touch({
      id,
      counts,
      n: signature.n,
      touched: ++this.#clock,
    });
  }

  /** Puts a question (its `questionTerms`) in its group, creating one with `newId` when none is close. */
  assign(
    questionTerms: readonly string[],
    newId: () => string,
    sources: readonly string[] = [],
  ): Assignment | null {
    if (questionTerms.length === 0) return null;
    const terms = [...this.#decompound(questionTerms), ...sources.map((s) => `${SOURCE_PREFIX}${s}`)];
    const weights = new Map(terms.map((term) => [term, this.#weight(term)]));
    const best = this.#best(terms, weights);
    const group: Group = best ?? { id: newId(), counts: new Map(), n: 0, touched: 0 };
    group.n += 1;
    group.touched = ++this.#clock;
    for (const term of terms) {
      // A typo of a term the group has counts for that term: the profile keeps one spelling.
      let own = group.counts.has(term) ? term : undefined;
      if (own === undefined && fuzzy(term))
        for (const t of group.counts.keys()) if (termsMatch(term, t)) own = t;
      if (own === undefined) this.#index(group.id, term);
      const key = own ?? term;
      group.counts.set(key, (group.counts.get(key) ?? 0) + 1);
    }
    for (const dropped of trimProfile(group)) this.#unindex(group.id, dropped);
    this.#touch(group);
    return { groupId: group.id, created: best === undefined, signature: signatureOf(group) };
  }

  /**
   * Two words of the site's groups written as one ("ratelimit", "healthcheck") count as written apart,
   * when the one word is in no group and both halves (4 letters or more) are.
   */
  #decompound(terms: readonly string[]): string[] {
    const out: string[] = [];
    for (const term of terms) {
      let parts: [string, string] | null = null;
      if (term.length >= 8 && !this.#df.has(term)) {
        let bestDistance = Number.POSITIVE_INFINITY;
        for (let i = 4; i <= term.length - 4; i++) {
          const left = term.slice(0, i);
          const right = term.slice(i);
          if (!this.#df.has(left) || !this.#df.has(right)) continue;
          const distance = Math.abs(i - term.length / 2);
          if (distance < bestDistance) {
            parts = [left, right];
            bestDistance = distance;
          }
        }
      }
      for (const t of parts ?? [term]) if (!out.includes(t)) out.push(t);
    }
    return out;
  }

  /** The closest group at or above the threshold, among the candidates sharing the most weight. */
  #best(terms: readonly string[], weights: ReadonlyMap<string, number>): Group | undefined {
    // Candidates come from the question's rarest terms first (their keys hold few groups); once
    // `CANDIDATE_POOL` groups are found, commoner terms (the product's name, in every other group) are
    // only checked against those, never read whole.
    const weightOf0 = (term: string): number => weights.get(term) ?? 0;
    const rarestFirst = [...terms].sort(
      (x, y) => weightOf0(y) - weightOf0(x) || (x < y ? -1 : x > y ? 1 : 0),
    );
    const shared = new Map<string, number>();
    const gathered = new Set<string>();
    const hit = new Set<string>();
    for (const term of rarestFirst) {
      if (shared.size >= CANDIDATE_POOL) break;
      // A term in more groups than the pool holds finds candidates only when nothing rarer did.
      if (shared.size > 0 && (this.#df.get(term) ?? 0) > CANDIDATE_POOL) continue;
      gathered.add(term);
      hit.clear();
      for (const key of keysOf(term)) for (const id of this.#keys.get(key) ?? []) hit.add(id);
      for (const id of hit) shared.set(id, (shared.get(id) ?? 0) + weightOf0(term));
    }
    for (const term of terms) {
      if (gathered.has(term)) continue;
      for (const [id, overlap] of shared)
        if (this.#groups.get(id)?.counts.has(term)) shared.set(id, overlap + weightOf0(term));
    }
    let own = 0;
    for (const weight of weights.values()) own += weight;
    // The weight a question shares with a group is at most what its keys found there, and a Dice
    // coefficient is at most 2·shared / (own + shared): groups that cannot reach the threshold are not
    // scored at all (most candidates share only an everyday word).
    const reachable = (overlap: number): boolean =>
      own > 0 && (2 * overlap) / (own + overlap) >= this.#threshold;
    const candidates = [...shared]
      .filter(([, overlap]) => reachable(overlap))
      .map(([id, overlap]) => ({ group: this.#groups.get(id), overlap }))
      .filter((c): c is { group: Group; overlap: number } => c.group !== undefined)
      .sort((a, b) => b.overlap - a.overlap || b.group.touched - a.group.touched)
      .slice(0, MAX_GROUP_CANDIDATES);
    let best: Group | undefined;
    let bestScore = 0;
    const memo = new Map(weights);
    const weightOf = (term: string): number => {
      let weight = memo.get(term);
      if (weight === undefined) {
        weight = this.#weight(term);
        memo.set(term, weight);
      }
      return weight;
    };
    for (const { group } of candidates) {
      const score = similarity(terms, own, weightOf, group);
      if (score < this.#threshold) continue;
      // Ties go to the most recently used group: deterministic, since use order is.
      if (best === undefined || score > bestScore || (score === bestScore && group.touched > best.touched)) {
        best = group;
        bestScore = score;
      }
    }
    return best;
  }

  /**
   * How much a term says about a question's topic: its inverse frequency among the groups (BM25's IDF
   * over topics, not questions, so a popular topic's own words keep their weight while the product's
   * name, in many topics, loses it), smoothed by `IDF_PRIOR_GROUPS` so a site's first groups are not
   * judged on two or three topics; less for an everyday word.
   */
  #weight(term: string): number {
    const df = this.#df.get(term) ?? 0;
    const idf = Math.log(1 + (this.#groups.size + IDF_PRIOR_GROUPS) / (df + 1));
    if (term.startsWith(SOURCE_PREFIX)) return this.#sourceWeight * idf;
    return (GENERIC_TERMS.has(term) ? this.#genericWeight : 1) * idf;
  }

  /** Marks the group most recently used; past `maxGroups`, the least recently used is forgotten. */
  #touch(group: Group): void {
    this.#groups.delete(group.id);
    this.#groups.set(group.id, group);
    // Map order is insertion order and every use re-inserts: the first entry is the least recently used.
    while (this.#groups.size > this.maxGroups) {
      const oldest = this.#groups.values().next().value;
      if (oldest === undefined) break;
      for (const term of oldest.counts.keys()) this.#unindex(oldest.id, term);
      this.#groups.delete(oldest.id);
    }
  }

  #index(id: string, term: string): void {
    this.#df.set(term, (this.#df.get(term) ?? 0) + 1);
    for (const key of keysOf(term)) {
      let ids = this.#keys.get(key);
      if (ids === undefined) {
        ids = new Set();
        this.#keys.set(key, ids);
      }
      ids.add(id);
    }
  }

  #unindex(id: string, term: string): void {
    const df = (this.#df.get(term) ?? 1) - 1;
    if (df > 0) this.#df.set(term, df);
    else this.#df.delete(term);
    for (const key of keysOf(term)) {
      const ids = this.#keys.get(key);
      ids?.delete(id);
      if (ids?.size === 0) this.#keys.delete(key);
    }
  }
}

/**
 * How close a question is to a group: the weighted Dice coefficient it has, on average, with the group's
 * questions. Each of its terms counts by the share of the group's questions that have it (or a typo of
 * it); the denominator is its own weight plus a typical member's.
 */
function similarity(
  terms: readonly string[],
  own: number,
  weightOf: (term: string) => number,
  group: Group,
): number {
  let shared = 0;
  for (const term of terms) {
    let count = group.counts.get(term) ?? 0;
    if (count === 0 && fuzzy(term))
      for (const [t, c] of group.counts) if (c > count && termsMatch(term, t)) count = c;
    shared += (weightOf(term) * count) / group.n;
  }
  let member = 0;
  for (const [t, c] of group.counts) member += (weightOf(t) * c) / group.n;
  return own + member === 0 ? 0 : (2 * shared) / (own + member);
}

/** Keeps the group's most common terms (among equals, the earliest); returns the terms dropped. */
function trimProfile(group: Group): string[] {
  if (group.counts.size <= MAX_SIGNATURE_TERMS) return [];
  const sorted = [...group.counts].sort((a, b) => b[1] - a[1]);
  group.counts = new Map(sorted.slice(0, MAX_SIGNATURE_TERMS));
  return sorted.slice(MAX_SIGNATURE_TERMS).map(([term]) => term);
}

function signatureOf(group: Group): GroupSignature {
  return { t: [...group.counts.keys()], c: [...group.counts.values()], n: group.n };
}
