import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../testing/seeded-random.ts';
import { ANALYZER_VERSION, type AnalyzedChunk } from './analyze.ts';
import { type IndexSink, SearchIndexBuilder } from './index-builder.ts';
import { encodeIndex } from './index-codec.ts';
import { DEFAULT_RANKING, type RankingParams } from './search-index.ts';
import type { IndexableChunk } from './types.ts';

/**
 * Chunks with analyses made up directly (no analyzer): Zipf-like words, so some terms have thousands
 * of postings and most a few, over several pages, versions and languages.
 */
const chunksOf = (count: number, wordsPerChunk: number, seed: number) => {
  const next = seededRandom(seed);
  const word = () => `w${Math.floor(1 / (next() + 1e-4)) + Math.floor(next() * 50)}`;
  const counts = (n: number): [string[], number[]] => {
    const found = new Map<string, number>();
    for (let i = 0; i < n; i++) {
      const w = word();
      found.set(w, (found.get(w) ?? 0) + (next() < 0.01 ? 300 : 1));
    }
    return [[...found.keys()], [...found.values()]];
  };
  return Array.from({ length: count }, (_, id) => {
    const page = Math.floor(id / 7);
    const body = counts(wordsPerChunk);
    const analysis: AnalyzedChunk = {
      v: ANALYZER_VERSION,
      s: 'english',
      l: [3, 4, wordsPerChunk],
      t: counts(3),
      h: counts(4),
      b: body,
      p: [body[0].map((_, i) => (i * 7_919 + page) & 0x7fffffff), body[1].map(() => 1)],
    };
    const chunk: IndexableChunk = {
      id,
      pagePath: `guides/page-${page}`,
      pageTitle: `Page ${page}`,
      headings: [],
      text: '',
      versions: page % 3 === 0 ? ['v1'] : [],
      languages: page % 5 === 0 ? ['fr'] : [],
      analyzed: null,
    };
    return { chunk, analysis };
  });
};

const build = (chunks: ReturnType<typeof chunksOf>, params: RankingParams = DEFAULT_RANKING) => {
  const builder = new SearchIndexBuilder(params, ANALYZER_VERSION);
  for (const [ord, { chunk, analysis }] of chunks.entries()) builder.addAnalyzed(chunk, analysis, ord % 7);
  return builder;
};

/** A sink that collects the bytes where they belong, and counts the waits the build made. */
const collect = () => {
  let bytes = new Uint8Array(0);
  let written = 0;
  const sink: IndexSink & { bytes: () => Uint8Array; written: () => number } = {
    start: (total) => {
      bytes = new Uint8Array(total);
    },
    write: (offset, data) => {
      bytes.set(data, offset);
      written += data.byteLength;
    },
    flush: async () => {},
    bytes: () => bytes,
    written: () => written,
  };
  return sink;
};

describe('SearchIndexBuilder.finishInto', () => {
  const chunks = chunksOf(1_500, 60, 7);
  const whole = encodeIndex(build(chunks).finish());

  it('writes exactly the bytes of the whole build, every byte once, in ranges of terms of any size', async () => {
    // 4 KB: 512 postings per range, fewer than the commonest terms have (each gets a range of its own,
    // larger than asked); 1 GB: one range.
    for (const partitionBytes of [4_096, 64 * 1024, 1 << 30]) {
      const sink = collect();
      const total = await build(chunks).finishInto(sink, partitionBytes);
      expect(total).toBe(whole.byteLength);
      expect(sink.written()).toBe(whole.byteLength);
      expect(Buffer.compare(sink.bytes(), whole)).toBe(0);
    }
  });

  it('gives the same bytes with its runs spilled to a file, which is gone after', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-builder-test-'));
    try {
      // Past a million runs, so whole blocks go to the file and every range reads them back.
      const many = chunksOf(12_000, 60, 11);
      const expected = encodeIndex(build(many).finish());
      const builder = build([]);
      builder.spillRunsAfter(dir, 0);
      for (const [ord, { chunk, analysis }] of many.entries()) builder.addAnalyzed(chunk, analysis, ord % 7);
      expect(fs.readdirSync(dir).length).toBe(1);
      const sink = collect();
      await builder.finishInto(sink, 256 * 1024);
      expect(Buffer.compare(sink.bytes(), expected)).toBe(0);
      expect(fs.readdirSync(dir)).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('keeps its runs in memory when the spill folder cannot be made, with the same bytes', async () => {
    // A folder under a file: neither it nor its file can be made.
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'docent-builder-test-')), 'a-file');
    fs.writeFileSync(file, '');
    const builder = build([]);
    builder.spillRunsAfter(path.join(file, 'spill'), 0);
    for (const [ord, { chunk, analysis }] of chunks.entries()) builder.addAnalyzed(chunk, analysis, ord % 7);
    const sink = collect();
    await builder.finishInto(sink, 64 * 1024);
    expect(Buffer.compare(sink.bytes(), whole)).toBe(0);
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  });

  it('builds an index with the forward view whole, with the same bytes', async () => {
    const params = { ...DEFAULT_RANKING, feedbackDocs: 5, feedbackTerms: 5 };
    const sink = collect();
    await build(chunks, params).finishInto(sink, 4_096);
    expect(Buffer.compare(sink.bytes(), encodeIndex(build(chunks, params).finish()))).toBe(0);
  });
});
