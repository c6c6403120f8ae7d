import fs from 'node:fs';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';
import type { AnalyzedChunk } from './analyze.ts';
import { normalizePagePath, parentOf } from './current-path.ts';
import { indexLayout } from './index-codec.ts';
import {
  GrowableF32,
  GrowableU32,
  MAX_TERMS,
  PairLookup,
  PairTable,
  RawRuns,
  StringTable,
  WordIds,
  WordTable,
  wordHash,
} from './index-tables.ts';
import type { LabelSet, RankingParams, Scratch, SearchIndex } from './search-index.ts';
import { ownCopy, StoredAnalysisReader } from './stored-analysis.ts';
import type { IndexableChunk } from './types.ts';

/*
 * The index build, apart from the search (search-index.ts): it needs no analyzer for chunks whose
 * stored analysis is current, so the build worker starts without loading one (the Snowball stemmers
 * took most of its start).
 */

export const scratchFor = (chunks: number, pages: number): Scratch => ({
  chunkScores: new Float32Array(chunks),
  chunkTouched: new Uint32Array(chunks),
  pageBest: new Float32Array(pages),
  pageSecond: new Float32Array(pages),
  pageTouched: new Uint32Array(pages),
});

/** An index from its parts (built, or read back by the codec), with empty per-query state. */
export const assembleIndex = (
  parts: Omit<SearchIndex, 'chunkCount' | 'filterCache' | 'scratch'>,
): SearchIndex => ({
  ...parts,
  chunkCount: parts.chunkIds.length,
  filterCache: new Map(),
  scratch: scratchFor(parts.chunkIds.length, parts.pageCount),
});

/** The ranking's pages from the chunks' paths: normalised, and each page's folder for sibling boosts. */
export const rankingPages = (
  paths: readonly string[],
): {
  pathPage: Uint32Array;
  pageCount: number;
  pageByPath: Map<string, number>;
  pageParent: Uint32Array;
  pagePaths: string[];
} => {
  const pageByPath = new Map<string, number>();
  const pagePaths: string[] = [];
  const pathPage = new Uint32Array(paths.length);
  const parents = new Map<string, number>();
  const pageParent: number[] = [];
  paths.forEach((p, i) => {
    const key = normalizePagePath(p);
    let page = pageByPath.get(key);
    if (page === undefined) {
      page = pageByPath.size;
      pageByPath.set(key, page);
      pagePaths.push(p);
      const parent = parentOf(key);
      let id = parents.get(parent);
      if (id === undefined) {
        id = parents.size;
        parents.set(parent, id);
      }
      pageParent.push(id);
    }
    pathPage[i] = page;
  });
  return {
    pathPage,
    pageCount: pageByPath.size,
    pageByPath,
    pageParent: Uint32Array.from(pageParent),
    pagePaths,
  };
};

const FIELD_COUNT = 4;
/** Fields whose terms a stored analysis lists (the fourth, pairs, are hashes). */
const WORD_FIELDS = 3;

/**
 * Builds an index one chunk at a time, holding per chunk only its raw (term, field, frequency) runs
 * (5 bytes each, in blocks) until `finish` turns them into postings, releasing the runs as it goes: a
 * site's chunks never need to be in memory at once, and the build's peak is about the raw runs plus the
 * finished postings. A large site's build (`spillRunsAfter`, `finishInto`) keeps neither: its runs go to
 * a file and its postings are made and handed on a range of terms at a time.
 *
 * A chunk comes in by `addStored` when its analysis is storage's JSON text of a current one (read
 * without JSON.parse, stored-analysis.ts), or else by `addAnalyzed` with its analysis (search-index.ts
 * `addChunk` does either).
 */
export class SearchIndexBuilder {
  /** Terms numbered so far: words and pairs share the ids (pairs are never shown, expanded or fuzzily matched). */
  private termCount = 0;
  private words = new WordIds();
  private pairs = new PairTable();
  private readonly stemmers = new Set<string | null>();
  private readonly pathIds = new Map<string, number>();
  private readonly paths: string[] = [];
  private readonly pathTitles: string[] = [];
  private readonly labelIds = new Map<string, number>();
  private readonly labelSets: LabelSet[] = [];
  /** The last chunk's label arrays and their set: a page's chunks share the page's arrays. */
  private lastLabels: { versions: readonly string[]; languages: readonly string[]; set: number } | null =
    null;
  private readonly chunkIds = new GrowableU32(1024);
  private readonly chunkOrd = new GrowableU32(1024);
  private readonly chunkPath = new GrowableU32(1024);
  private readonly chunkLabels = new GrowableU32(1024);
  // Pass 1: term ids and raw (term, field, tf) runs per chunk, plus field lengths for the averages.
  private readonly rawOffsets = new GrowableU32(1024);
  private readonly raw = new RawRuns();
  private readonly lengths = new GrowableF32(4096);
  private readonly sums = new Float64Array(FIELD_COUNT);
  /** Chunks per term (postings it will have), counted as chunks arrive. */
  private df = new Uint32Array(1 << 12);
  private lastChunk = new Int32Array(1 << 12).fill(-1);
  /** Per field: whether its runs make postings (only a positive weight does, see finish). */
  private readonly weighted: boolean[];
  private readonly reader: StoredAnalysisReader;
  private count = 0;
  private finished = false;

  /** `analyzerVersion`: analyze.ts `ANALYZER_VERSION`, the version `addStored` reads. */
  constructor(
    private readonly params: RankingParams,
    analyzerVersion: number,
  ) {
    this.rawOffsets.push(0);
    this.weighted = params.fields.map((field) => (field?.weight ?? 0) > 0);
    this.reader = new StoredAnalysisReader(analyzerVersion);
  }

  get chunks(): number {
    return this.count;
  }

  /**
   * Adds the chunk when its `analyzed` is storage's JSON text of a current analysis as the analyzer
   * writes it; false, and nothing added, for anything else (then `addAnalyzed` takes it).
   */
  addStored(chunk: IndexableChunk, ord = 0): boolean {
    const text = chunk.analyzed;
    const a = this.reader;
    if (typeof text !== 'string' || !a.read(text)) return false;
    const c = this.startChunk();
    this.stemmers.add(a.stemmer);
    this.addLengths(a.lengths);
    let k = 0;
    for (let f = 0; f < WORD_FIELDS; f++) {
      for (const end = a.fieldEnds[f] ?? 0; k < end; k++) {
        const start = a.termStarts[k] ?? 0;
        const stop = a.termEnds[k] ?? 0;
        const hash = a.termHashes[k] ?? 0;
        let id = this.words.find(text, start, stop, hash);
        if (id === -1) id = this.newWord(ownCopy(text, start, stop), hash);
        this.addRun(c, id, a.termCounts[k] ?? 0, f);
      }
    }
    for (let i = 0; i < a.pairs; i++)
      this.addRun(c, this.pairTerm(a.pairHashes[i] ?? 0), a.pairCounts[i] ?? 0, 3);
    this.endChunk(chunk, ord);
    return true;
  }

  /** Adds the chunk with its analysis (`analyzed` is not read). */
  addAnalyzed(chunk: IndexableChunk, a: AnalyzedChunk, ord = 0): void {
    const c = this.startChunk();
    this.stemmers.add(a.s);
    this.addLengths(a.l);
    const fieldTerms = [a.t, a.h, a.b];
    for (let f = 0; f < WORD_FIELDS; f++) {
      const [names, counts] = fieldTerms[f] ?? [[], []];
      for (let i = 0; i < names.length; i++) {
        // Stored JSON is only narrowed, not checked element by element: a term is a string here.
        const name = String(names[i] ?? '');
        let id = this.words.get(name);
        if (id === -1) id = this.newWord(name, wordHash(name));
        this.addRun(c, id, Number(counts[i] ?? 0), f);
      }
    }
    const [hashes, pairCounts] = a.p;
    for (let i = 0; i < hashes.length; i++)
      this.addRun(c, this.pairTerm(hashes[i] ?? 0), Number(pairCounts[i] ?? 0), 3);
    this.endChunk(chunk, ord);
  }

  private startChunk(): number {
    if (this.finished) throw new Error('SearchIndexBuilder: a chunk was added after finish()');
    return this.count++;
  }

  private addLengths(l: ArrayLike<number>): void {
    const fieldLengths = [l[0], l[1], l[2], (l[0] ?? 0) + (l[1] ?? 0) + (l[2] ?? 0)];
    for (let f = 0; f < FIELD_COUNT; f++) {
      const len = fieldLengths[f] ?? 0;
      this.lengths.push(len);
      this.sums[f] = (this.sums[f] ?? 0) + len;
    }
  }

  private endChunk(chunk: IndexableChunk, ord: number): void {
    this.rawOffsets.push(this.raw.size);
    let path = this.pathIds.get(chunk.pagePath);
    if (path === undefined) {
      path = this.paths.length;
      this.pathIds.set(chunk.pagePath, path);
      this.paths.push(chunk.pagePath);
      this.pathTitles.push(chunk.pageTitle);
    }
    this.chunkIds.push(chunk.id);
    this.chunkOrd.push(ord);
    this.chunkPath.push(path);
    this.chunkLabels.push(this.labelSetOf(chunk.versions, chunk.languages));
    this.maybeSpill();
  }

  private labelSetOf(versions: readonly string[], languages: readonly string[]): number {
    const last = this.lastLabels;
    if (last !== null && last.versions === versions && last.languages === languages) return last.set;
    const key = JSON.stringify([versions, languages]);
    let set = this.labelIds.get(key);
    if (set === undefined) {
      set = this.labelSets.length;
      this.labelIds.set(key, set);
      this.labelSets.push({ versions: [...versions], languages: [...languages] });
    }
    this.lastLabels = { versions, languages, set };
    return set;
  }

  private newWord(word: string, hash: number): number {
    const id = this.newTerm();
    this.words.add(word, hash, id);
    return id;
  }

  private pairTerm(hash: number): number {
    let id = this.pairs.get(hash);
    if (id === undefined) {
      id = this.newTerm();
      this.pairs.set(hash, id);
    }
    return id;
  }

  private newTerm(): number {
    const id = this.termCount++;
    if (id === MAX_TERMS) throw new Error(`a search index holds at most ${MAX_TERMS} distinct terms`);
    if (id === this.df.length) {
      const df = new Uint32Array(id * 2);
      df.set(this.df);
      this.df = df;
      const last = new Int32Array(id * 2).fill(-1);
      last.set(this.lastChunk);
      this.lastChunk = last;
    }
    return id;
  }

  private addRun(c: number, term: number, tf: number, field: number): void {
    this.raw.push(term, tf, field);
    // Only a positive weight makes a posting (see finish); a term counts once per chunk.
    if (tf > 0 && this.weighted[field] === true && this.lastChunk[term] !== c) {
      this.lastChunk[term] = c;
      this.df[term] = (this.df[term] ?? 0) + 1;
    }
  }

  /**
   * From `afterBytes` of raw runs on, the runs go to a file in the folder `dir` (made then, if missing,
   * in a parent that exists) instead of memory (RawRuns `spillTo`): a large site's build then holds its
   * vocabulary and per-chunk arrays, not its runs. The caller removes the folder. A folder that cannot
   * be made or written leaves the runs in memory, as without this call.
   */
  spillRunsAfter(dir: string, afterBytes: number): void {
    this.spill = { dir, afterBytes };
  }

  private spill: { dir: string; afterBytes: number } | null = null;

  /** Spills the runs once they pass the limit; called between chunks. */
  private maybeSpill(): void {
    const spill = this.spill;
    if (spill === null || this.raw.spilled || this.raw.bytes <= spill.afterBytes) return;
    this.spill = null;
    try {
      // Not `recursive`: Node 20's recursive mkdir never returns for some unwritable parents (/proc).
      if (!fs.existsSync(spill.dir)) fs.mkdirSync(spill.dir, { mode: 0o700 });
      this.raw.spillTo(join(spill.dir, `runs-${threadId}`));
    } catch (error) {
      // Blocks already in the file cannot come back: a write that failed part-way fails the build.
      if (this.raw.spilled) throw error;
      // No folder or file (a read-only disk): the build holds its runs, as small builds always do.
    }
  }

  /**
   * Pass 2: BM25F. Per-field length-normalised frequencies are weighted and summed into one
   * pseudo-frequency per term, then saturated once, so repeating a word across fields cannot outscore
   * covering more of the query. A dense accumulator over term ids avoids a Map per chunk; postings are
   * written straight to their place (term-ordered, chunks ascending) since every term's count is known.
   * The word and pair tables are made first, so that the build's own lookups are dropped before the
   * postings are allocated.
   */
  finish(): SearchIndex {
    try {
      const prepared = this.prepare();
      const { total, termCount } = prepared;
      const docs = new Uint32Array(total);
      const weights = new Float32Array(total);
      // The forward (chunk → terms) view is only read by feedback; skip its memory when that is off.
      const forward = this.params.feedbackDocs > 0 ? newForward(this.count, total) : null;
      prepared.fill(0, termCount, docs, weights, { release: true, forward });
      return assembleIndex({
        ...prepared.parts,
        postings: { ...prepared.parts.postings, docs, weights },
        forward: forward ? forward.trimmed() : prepared.parts.forward,
      });
    } finally {
      this.raw.close();
    }
  }

  /**
   * The same index, serialized straight into `sink` (index-codec.ts `indexLayout` places every byte):
   * the postings are filled a range of terms at a time, each range no more than `partitionBytes` of
   * postings (at least one term), reading the runs again for each. So the build never holds a large
   * site's postings: its peak is its vocabulary, per-chunk arrays and one range. The bytes are exactly
   * `encodeIndex(finish())`'s: a term's postings depend on its own runs alone. An index with the forward
   * view (feedback on) is built whole, as `finish` does.
   */
  async finishInto(sink: IndexSink, partitionBytes: number): Promise<number> {
    if (this.params.feedbackDocs > 0) {
      const layout = indexLayout(this.finish());
      sink.start(layout.total);
      await writeInSlices(sink, layout.pieces);
      return layout.total;
    }
    try {
      const prepared = this.prepare();
      const { total, termCount, offsets } = prepared;
      const layout = indexLayout(prepared.parts, {
        'postings.docs': { kind: 'u32', length: total },
        'postings.weights': { kind: 'f32', length: total },
      });
      sink.start(layout.total);
      await writeInSlices(sink, layout.pieces);
      const docsAt = layout.deferred.get('postings.docs') ?? 0;
      const weightsAt = layout.deferred.get('postings.weights') ?? 0;
      const most = Math.max(1, Math.floor(partitionBytes / 8));
      let docs = new Uint32Array(Math.min(most, total));
      let weights = new Float32Array(docs.length);
      for (let lo = 0; lo < termCount; ) {
        const from = offsets[lo] ?? 0;
        let hi = lo + 1;
        while (hi < termCount && (offsets[hi + 1] ?? 0) - from <= most) hi++;
        const n = (offsets[hi] ?? 0) - from;
        if (n > docs.length) {
          // One term with more postings than a range holds: its own range, as large as it needs.
          docs = new Uint32Array(n);
          weights = new Float32Array(n);
        }
        prepared.fill(lo, hi, docs, weights, { release: hi === termCount, forward: null });
        await writeInSlices(sink, [
          [docsAt + 4 * from, bytesOf(docs, n)],
          [weightsAt + 4 * from, bytesOf(weights, n)],
        ]);
        lo = hi;
      }
      await sink.flush();
      return layout.total;
    } finally {
      this.raw.close();
    }
  }

  /** Everything but the postings' chunks and weights, and the pass that fills them for a range of terms. */
  private prepare() {
    if (this.finished) throw new Error('SearchIndexBuilder: finish() was called twice');
    this.finished = true;
    const params = this.params;
    const chunkCount = this.count;
    const termCount = this.termCount;
    const words = WordTable.of(termCount, this.words.vocabulary());
    const pairs = PairLookup.fromTable(this.pairs);
    this.words = new WordIds();
    this.pairs = new PairTable();
    this.lastChunk = new Int32Array(0);

    const df = this.df;
    const averages = Array.from(this.sums, (s) => s / Math.max(1, chunkCount) || 1);
    const offsets = new Uint32Array(termCount + 1);
    for (let t = 0; t < termCount; t++) offsets[t + 1] = (offsets[t] ?? 0) + (df[t] ?? 0);
    const total = offsets[termCount] ?? 0;
    const idf = new Float32Array(termCount);
    for (let t = 0; t < termCount; t++) {
      const n = df[t] ?? 0;
      // BM25's probabilistic IDF with +1 inside the log: always positive, so every match adds.
      idf[t] = Math.log(1 + (chunkCount - n + 0.5) / (n + 0.5));
    }
    this.df = new Uint32Array(0);
    const rawOffsets = this.rawOffsets.data;
    const lengths = this.lengths.data;
    const raw = this.raw;
    const cursor = new Uint32Array(termCount);
    const acc = new Float32Array(termCount);
    const scale = new Float32Array(FIELD_COUNT);
    let seen = new Uint32Array(256);
    let seenCount = 0;
    let lo = 0;
    let hi = 0;
    const accumulate = (t: number, tf: number, field: number): void => {
      if (t < lo || t >= hi) return;
      const w = tf * (scale[field] ?? 0);
      if (w <= 0) return;
      if ((acc[t] ?? 0) === 0) {
        if (seenCount === seen.length) {
          const grown = new Uint32Array(seen.length * 2);
          grown.set(seen);
          seen = grown;
        }
        seen[seenCount++] = t;
      }
      acc[t] = (acc[t] ?? 0) + w;
    };
    /** Fills the postings of terms `from` to `to` (exclusive) into `docs` and `weights` from their start. */
    const fill = (
      from: number,
      to: number,
      docs: Uint32Array,
      weights: Float32Array,
      options: { release: boolean; forward: Forward | null },
    ): void => {
      lo = from;
      hi = to;
      const base = offsets[from] ?? 0;
      cursor.set(offsets.subarray(from, to), from);
      const forward = options.forward;
      for (let c = 0; c < chunkCount; c++) {
        for (let f = 0; f < FIELD_COUNT; f++) {
          const field = params.fields[f];
          const norm = field
            ? 1 - field.b + (field.b * (lengths[c * FIELD_COUNT + f] ?? 0)) / (averages[f] ?? 1)
            : 1;
          scale[f] = field ? field.weight / norm : 0;
        }
        seenCount = 0;
        raw.read(rawOffsets[c] ?? 0, rawOffsets[c + 1] ?? 0, accumulate);
        if (options.release) raw.releaseBefore(rawOffsets[c + 1] ?? 0);
        for (let i = 0; i < seenCount; i++) {
          const t = seen[i] ?? 0;
          const tf = acc[t] ?? 0;
          acc[t] = 0;
          const weight = tf / (params.k1 + tf);
          const at = cursor[t] ?? 0;
          cursor[t] = at + 1;
          docs[at - base] = c;
          weights[at - base] = weight;
          if (forward) forward.add(t, weight);
        }
        forward?.endChunk(c);
      }
    };
    const chunkPath = this.chunkPath.trimmed();
    const pages = rankingPages(this.paths);
    const parts: Omit<SearchIndex, 'chunkCount' | 'filterCache' | 'scratch'> = {
      params,
      words,
      pairs,
      stemmers: [...this.stemmers],
      chunkIds: this.chunkIds.trimmed(),
      chunkOrd: this.chunkOrd.trimmed(),
      chunkPath,
      paths: StringTable.of(this.paths),
      pathTitles: StringTable.of(this.pathTitles),
      chunkLabels: this.chunkLabels.trimmed(),
      labelSets: this.labelSets,
      pathPage: pages.pathPage,
      chunkPage: chunkPath.map((p) => pages.pathPage[p] ?? 0),
      pageCount: pages.pageCount,
      pagePaths: StringTable.of(pages.pagePaths),
      pageParent: pages.pageParent,
      pageByPath: StringTable.of([...pages.pageByPath.keys()], { lookup: true }),
      postings: { offsets, docs: new Uint32Array(0), weights: new Float32Array(0), idf },
      forward: { offsets: new Uint32Array(1), terms: new Uint32Array(0), weights: new Float32Array(0) },
    };
    return { parts, total, termCount, offsets, fill };
  }
}

/** Bytes handed to the sink at a time: a range's parts are not all queued at once. */
const SINK_SLICE_BYTES = 4 << 20;

/** Writes placed bytes into the sink a slice at a time, waiting for it between slices. */
const writeInSlices = async (sink: IndexSink, pieces: readonly [number, Uint8Array][]): Promise<void> => {
  for (const [at, bytes] of pieces)
    for (let from = 0; from < bytes.byteLength; from += SINK_SLICE_BYTES) {
      sink.write(at + from, bytes.subarray(from, from + SINK_SLICE_BYTES));
      await sink.flush();
    }
};

/** The first `length` elements' bytes. */
const bytesOf = (array: Uint32Array | Float32Array, length: number): Uint8Array =>
  new Uint8Array(array.buffer, array.byteOffset, length * 4);

/** Where `finishInto` puts the serialized index: every byte written once, at its offset. */
export interface IndexSink {
  /** Called once, first, with the serialized index's size. */
  start(total: number): void;
  /** `bytes` belong at `offset`; the sink copies them before returning. */
  write(offset: number, bytes: Uint8Array): void;
  /** Resolves when the sink has room for more (the build waits between ranges of terms). */
  flush(): Promise<void>;
}

interface Forward {
  add(term: number, weight: number): void;
  endChunk(chunk: number): void;
  trimmed(): SearchIndex['forward'];
}

/** The forward (chunk → terms) view, filled chunk by chunk beside the postings. */
const newForward = (chunkCount: number, total: number): Forward => {
  const offsets = new Uint32Array(chunkCount + 1);
  const terms = new Uint32Array(total);
  const weights = new Float32Array(total);
  let size = 0;
  return {
    add(term, weight) {
      terms[size] = term;
      weights[size++] = weight;
    },
    endChunk(chunk) {
      offsets[chunk + 1] = size;
    },
    // Shorter than the postings only when a field's normalisation is not positive (see addRun).
    trimmed: () => ({
      offsets,
      terms: size === total ? terms : terms.slice(0, size),
      weights: size === total ? weights : weights.slice(0, size),
    }),
  };
};
