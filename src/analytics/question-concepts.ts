/**
 * What the site's own docs say about the words of readers' questions: for each word of the docs, the
 * sections (chunks) it is used in, so two questions worded differently but about one thing (`rotate a
 * key` / `regenerate the secret`, `healthz` / `liveness probe`) are close when the docs use their
 * words in the same sections. An explicit semantic analysis over the site's chunks: a question's
 * concept vector is the sum of its words' chunk vectors, weighted as its words are.
 *
 * Built from the site's stored search index (the same bytes `SiteSearch` loads), once per index
 * generation, then the index is let go: the model keeps, per word, only its `CONCEPT_DIMS_PER_TERM`
 * strongest chunks, and at most `MAX_CONCEPT_TERMS` words (the ones in most chunks), so its size is
 * bounded whatever the site's: about 6 MB at most (209 KB for Docent's own docs). Building it reads the
 * whole stored index once (a copy beside the search's, for as long as the build takes).
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { SearchIndex } from '../search/search-index.ts';

/** Chunks kept per word: its strongest uses; a word used everywhere says little beyond them. */
export const CONCEPT_DIMS_PER_TERM = 16;
/** Words a model keeps at most (those in most chunks): bounds its memory on a very large site. */
export const MAX_CONCEPT_TERMS = 30_000;
/** Words processed between yields to the event loop while a model is built. */
const BUILD_SLICE = 2_000;

/** A sparse vector: dimensions (chunk numbers) ascending, and their weights. */
export interface SparseVector {
  dims: Uint32Array;
  weights: Float32Array;
}

export class ConceptModel {
  constructor(
    /** Word → its place in the arrays. */
    private readonly ids: ReadonlyMap<string, number>,
    private readonly offsets: Uint32Array,
    private readonly dims: Uint32Array,
    private readonly weights: Float32Array,
    /** Each word's inverse frequency among the site's chunks (the search's BM25 IDF). */
    private readonly idfs: Float32Array,
    /** The IDF of a word the docs never use: the rarest possible. */
    readonly unknownIdf: number,
  ) {}

  get terms(): number {
    return this.ids.size;
  }

  /** The word's chunks (unit length), or undefined when the docs do not use it. */
  vectorOf(term: string): SparseVector | undefined {
    const id = this.ids.get(term);
    if (id === undefined) return undefined;
    const start = this.offsets[id] ?? 0;
    const end = this.offsets[id + 1] ?? 0;
    return { dims: this.dims.subarray(start, end), weights: this.weights.subarray(start, end) };
  }

  /** How rare the word is in the docs (`unknownIdf` for a word they do not use). */
  idfOf(term: string): number {
    const id = this.ids.get(term);
    return id === undefined ? this.unknownIdf : (this.idfs[id] ?? this.unknownIdf);
  }

  /** Bytes held, roughly (arrays plus the word map). */
  get bytes(): number {
    let words = 0;
    for (const term of this.ids.keys()) words += 2 * term.length + 48;
    return (
      this.offsets.byteLength + this.dims.byteLength + this.weights.byteLength + this.idfs.byteLength + words
    );
  }
}

/** The concept model of a site's search index (yields to the event loop while it works). */
export async function conceptModelFromIndex(
  index: SearchIndex,
  options: { dimsPerTerm?: number; maxTerms?: number } = {},
): Promise<ConceptModel> {
  const perTerm = options.dimsPerTerm ?? CONCEPT_DIMS_PER_TERM;
  const maxTerms = options.maxTerms ?? MAX_CONCEPT_TERMS;
  const { offsets, docs, weights, idf } = index.postings;
  const termCount = offsets.length - 1;
  // Words (not pairs), most chunks first, at most `maxTerms`; ties by id, so the choice is deterministic.
  const words: number[] = [];
  for (let t = 0; t < termCount; t++)
    if (!index.words.isPair(t) && (offsets[t + 1] ?? 0) > (offsets[t] ?? 0)) words.push(t);
  const df = (t: number): number => (offsets[t + 1] ?? 0) - (offsets[t] ?? 0);
  if (words.length > maxTerms) {
    words.sort((a, b) => df(b) - df(a) || a - b);
    words.length = maxTerms;
    words.sort((a, b) => a - b);
  }
  const ids = new Map<string, number>();
  const outOffsets = new Uint32Array(words.length + 1);
  const outDims: number[] = [];
  const outWeights: number[] = [];
  const outIdf = new Float32Array(words.length);
  let maxIdf = 0;
  for (let i = 0; i < words.length; i++) {
    if (i > 0 && i % BUILD_SLICE === 0) await yieldToEventLoop();
    const t = words[i] ?? 0;
    const start = offsets[t] ?? 0;
    const end = offsets[t + 1] ?? 0;
    let picked: [number, number][] = [];
    for (let j = start; j < end; j++) picked.push([docs[j] ?? 0, weights[j] ?? 0]);
    if (picked.length > perTerm) picked = picked.sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, perTerm);
    picked.sort((a, b) => a[0] - b[0]);
    let norm = 0;
    for (const [, w] of picked) norm += w * w;
    norm = Math.sqrt(norm) || 1;
    for (const [d, w] of picked) {
      outDims.push(d);
      outWeights.push(w / norm);
    }
    outOffsets[i + 1] = outDims.length;
    outIdf[i] = idf[t] ?? 0;
    maxIdf = Math.max(maxIdf, outIdf[i] ?? 0);
    ids.set(index.words.wordAt(t), i);
  }
  return new ConceptModel(
    ids,
    outOffsets,
    Uint32Array.from(outDims),
    Float32Array.from(outWeights),
    outIdf,
    // A word no chunk uses is rarer than one in a single chunk.
    maxIdf === 0 ? Math.log(1 + index.chunkCount + 0.5) : maxIdf,
  );
}
