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
  /** The units' distinct terms, in order of first use. */
  readonly vocabulary: readonly string[];
  /**
   * The indexes of the units that have `term` (ascending), or undefined when none has it; `hash` is
   * `hashString(term)`. An answer looks up its few question terms here instead of testing every unit for
   * every term, in a table of numbers probed by the hash (a `Map` keyed by strings was the answer's
   * costliest step).
   */
  unitsWith(term: string, hash: number): readonly number[] | undefined;
  /**
   * The distinct terms by length: typo matching tries only the terms one letter shorter or longer than
   * the question's term, or as long.
   */
  readonly vocabularyByLength: readonly (readonly string[] | undefined)[];
  /**
   * `hashString` of each unit's `key`: an answer drops units whose key another chunk's unit has, and
   * comparing these numbers first spares comparing the (long) keys themselves.
   */
  readonly keyHashes: Int32Array;
  /**
   * Each unit's number of terms, or -1 for a code block: what scoring reads of every unit, kept together
   * so that it does not visit each unit object.
   */
  readonly termCounts: Int32Array;
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

/** FNV-1a over the string's UTF-16 units. */
export function hashString(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h | 0;
}

function analyze(text: string): ChunkAnalysis {
  const units = splitUnits(text);
  const indexOf = new Map<string, number>();
  const vocabulary: string[] = [];
  const postings: number[][] = [];
  for (const [i, unit] of units.entries()) {
    for (const term of unit.termSet) {
      const j = indexOf.get(term);
      if (j !== undefined) (postings[j] as number[]).push(i);
      else {
        indexOf.set(term, vocabulary.length);
        vocabulary.push(term);
        postings.push([i]);
      }
    }
  }
  // Open addressing, at most half full: slot → index into `vocabulary` + 1 (0: empty).
  let size = 8;
  while (size < 2 * vocabulary.length) size *= 2;
  const mask = size - 1;
  const slots = new Int32Array(size);
  const hashes = new Int32Array(vocabulary.length);
  for (const [j, term] of vocabulary.entries()) {
    const h = hashString(term);
    hashes[j] = h;
    let s = h & mask;
    while (slots[s] !== 0) s = (s + 1) & mask;
    slots[s] = j + 1;
  }
  const vocabularyByLength: string[][] = [];
  for (const term of vocabulary) {
    const list = vocabularyByLength[term.length];
    if (list === undefined) vocabularyByLength[term.length] = [term];
    else list.push(term);
  }
  const keyHashes = new Int32Array(units.length);
  const termCounts = new Int32Array(units.length);
  for (const [i, unit] of units.entries()) {
    keyHashes[i] = hashString(unit.key);
    termCounts[i] = unit.kind === 'code' ? -1 : unit.terms.length;
  }
  let whole: ReadonlySet<string> | undefined;
  return {
    units,
    vocabulary,
    unitsWith: (term, hash) => {
      for (let s = hash & mask; ; s = (s + 1) & mask) {
        const j = (slots[s] as number) - 1;
        if (j < 0) return undefined;
        if (hashes[j] === hash && vocabulary[j] === term) return postings[j];
      }
    },
    vocabularyByLength,
    keyHashes,
    termCounts,
    textTerms: () => {
      whole ??= new Set(terms(text));
      return whole;
    },
  };
}
