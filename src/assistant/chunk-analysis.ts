/**
 * What the built-in answerer reads of one retrieved chunk, worked out once per chunk text and kept:
 * popular pages are retrieved again and again, and splitting a chunk into sentences and stemming its
 * words cost far more than answering from them.
 */
import { type AnswerUnit, splitUnits, terms } from './answer-text.ts';
import { TextKeyedCache } from './text-keyed-cache.ts';

export interface ChunkAnalysis {
  /** `splitUnits` of the text. Read-only: shared by every answer that retrieves the chunk. */
  readonly units: readonly AnswerUnit[];
  /**
   * For each term of the units, the indexes of the units that have it, ascending: an answer looks up its
   * few question terms here instead of testing every unit for every term.
   */
  readonly postings: ReadonlyMap<string, readonly number[]>;
  /**
   * The units' distinct terms (the keys of `postings`) by length: typo matching tries only the terms one
   * letter shorter or longer than the question's term, or as long.
   */
  readonly vocabularyByLength: readonly (readonly string[] | undefined)[];
  /**
   * A hash of each unit's `key`: an answer drops units whose key another chunk's unit has, and comparing
   * these numbers first spares comparing the (long) keys themselves.
   */
  readonly keyHashes: Int32Array;
  /** `terms` of the whole text as a set, computed on first use (only when two chunks share a page). */
  textTerms(): ReadonlySet<string>;
}

/** Chunks kept; the cache starts over when full. */
export const CHUNK_CACHE_ENTRIES = 4_000;
const cache = new TextKeyedCache<ChunkAnalysis>(CHUNK_CACHE_ENTRIES);

/** The analysis of `text`, from the cache when the same text was analysed before. */
export function analyzeChunk(text: string): ChunkAnalysis {
  return cache.getOrAdd(text, analyze);
}

/** Chunks currently cached (for tests of the bound). */
export function cachedChunkCount(): number {
  return cache.size;
}

function analyze(text: string): ChunkAnalysis {
  const units = splitUnits(text);
  const postings = new Map<string, number[]>();
  for (const [i, unit] of units.entries()) {
    for (const term of unit.termSet) {
      const list = postings.get(term);
      if (list === undefined) postings.set(term, [i]);
      else list.push(i);
    }
  }
  const vocabularyByLength: string[][] = [];
  for (const term of postings.keys()) {
    const list = vocabularyByLength[term.length];
    if (list === undefined) vocabularyByLength[term.length] = [term];
    else list.push(term);
  }
  const keyHashes = new Int32Array(units.length);
  for (const [i, unit] of units.entries()) keyHashes[i] = hashKey(unit.key);
  let whole: ReadonlySet<string> | undefined;
  return {
    units,
    postings,
    vocabularyByLength,
    keyHashes,
    textTerms: () => {
      whole ??= new Set(terms(text));
      return whole;
    },
  };
}

/** FNV-1a over the key's UTF-16 units. */
function hashKey(key: string): number {
  let h = 2166136261;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 16777619);
  return h | 0;
}
