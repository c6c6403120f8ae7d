import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../testing/seeded-random.ts';
import {
  MAX_TERMS,
  PairLookup,
  PairTable,
  RawRuns,
  StringTable,
  WordIds,
  WordTable,
  type WordTableArrays,
  wordHash,
} from './index-tables.ts';

describe('StringTable', () => {
  const strings = ['', 'guides/setup', 'référence/clés', 'guides/setup', '日本語/ページ', 'a'];

  it('gives each string back by its number, decoded only then', () => {
    const table = StringTable.of(strings);
    expect(table.length).toBe(strings.length);
    expect(table.all()).toEqual(strings);
    expect(table.at(2)).toBe('référence/clés');
    // Without lookup it holds no hash table, and finds nothing by string.
    expect(table.arrays.slots.length).toBe(0);
    expect(table.get('a')).toBeUndefined();
  });

  it('finds a string by its bytes, the empty one included (the root page), and the first of repeats', () => {
    const table = StringTable.of(strings, { lookup: true });
    expect(table.get('')).toBe(0);
    expect(table.get('guides/setup')).toBe(1);
    expect(table.get('référence/clés')).toBe(2);
    expect(table.get('日本語/ページ')).toBe(4);
    expect(table.get('guides/setu')).toBeUndefined();
    expect(table.get('reference/cles')).toBeUndefined();
    const many = Array.from({ length: 5_000 }, (_, i) => `page/${i}`);
    const big = StringTable.of(many, { lookup: true });
    for (const [i, value] of many.entries()) expect(big.get(value)).toBe(i);
  });
});

/** Words of ASCII, accented and CJK letters, astral characters and lone surrogates. */
const randomWord = (next: () => number): string => {
  const units = ['a', 'b', 's', 'e', 'r', 'ch', 'é', 'ë', 'ß', '語', '😀', '\ud800', '\udc00', 'z'];
  let word = '';
  const length = Math.floor(next() * 9);
  for (let i = 0; i < length; i++) word += units[Math.floor(next() * units.length)];
  return word;
};

/** The word table as it was first built: each word encoded on its own, slots and buckets by comparison sorts. */
const referenceWordTable = (words: readonly string[]): WordTableArrays => {
  const encoder = new TextEncoder();
  const offsets = new Uint32Array(words.length + 1);
  const chunks: Uint8Array[] = [];
  let total = 0;
  words.forEach((word, i) => {
    const bytes = encoder.encode(word);
    chunks.push(bytes);
    total += bytes.length;
    offsets[i + 1] = total;
  });
  const bytes = new Uint8Array(total);
  for (const [i, chunk] of chunks.entries()) bytes.set(chunk, offsets[i]);
  const kept = words.filter((w) => w !== '').length;
  let size = 16;
  while (size < kept * 2) size *= 2;
  const slots = new Int32Array(size).fill(-1);
  const slotHashes = new Uint32Array(size);
  words.forEach((word, id) => {
    if (word === '') return;
    const h = wordHash(word);
    let i = h & (size - 1);
    while (slots[i] !== -1) i = (i + 1) & (size - 1);
    slots[i] = id;
    slotHashes[i] = h;
  });
  const keyOf = (id: number): number => {
    const word = words[id] ?? '';
    return word.charCodeAt(0) * 65_536 + word.length;
  };
  const fuzzy = [...words.keys()].filter((id) => (words[id] ?? '').length >= 4);
  fuzzy.sort((a, b) => keyOf(a) - keyOf(b) || a - b);
  return {
    slots,
    slotHashes,
    offsets,
    bytes,
    fuzzyKeys: Uint32Array.from(fuzzy, keyOf),
    fuzzyIds: Uint32Array.from(fuzzy),
  };
};

describe('WordTable', () => {
  it('is built as the reference builds it: bytes, offsets, slots and typo buckets', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const next = seededRandom(seed);
      const seen = new Set<string>();
      // Pairs ('') outnumber words, as in a real index; a word may be '' too.
      const words = Array.from({ length: 50 + seed * 40 }, () => {
        if (next() < 0.6) return '';
        const word = randomWord(next);
        if (seen.has(word)) return '';
        seen.add(word);
        return word;
      });
      const expected = referenceWordTable(words);
      expect(WordTable.fromWords(words).arrays).toEqual(expected);
      // Built from its words alone, as the builder does.
      const ids = [...words.keys()].filter((id) => words[id] !== '');
      const vocabulary = {
        words: ids.map((id) => words[id] ?? ''),
        ids: Uint32Array.from(ids),
        hashes: Uint32Array.from(ids, (id) => wordHash(words[id] ?? '')),
      };
      expect(WordTable.of(words.length, vocabulary).arrays).toEqual(expected);
      const table = new WordTable(expected);
      for (const id of ids) expect(table.get(words[id] ?? '')).toBe(id);
    }
  });

  it('orders typo buckets whose keys pass 32 bits (words of 65,536 units) as the reference does', () => {
    const words = [
      '\uffff'.repeat(70_000),
      'search',
      '',
      '\uffffabc',
      'a'.repeat(65_536),
      'seach',
      '\uffff'.repeat(65_537),
    ];
    expect(WordTable.fromWords(words).arrays).toEqual(referenceWordTable(words));
  });
});

describe('StringTable bytes', () => {
  it('are what TextEncoder makes of each string, lone surrogates as U+FFFD', () => {
    const next = seededRandom(7);
    const strings = Array.from({ length: 300 }, () => randomWord(next) + randomWord(next));
    const { offsets, bytes } = StringTable.of(strings).arrays;
    const encoder = new TextEncoder();
    strings.forEach((value, i) => {
      expect(bytes.subarray(offsets[i], offsets[i + 1])).toEqual(encoder.encode(value));
    });
    expect(bytes.byteLength).toBe(offsets[strings.length]);
    expect(bytes.buffer.byteLength).toBe(bytes.byteLength);
  });
});

describe('WordIds', () => {
  it('finds a word by its characters inside a longer text, and by itself', () => {
    const ids = new WordIds();
    const words = Array.from(new Set(Array.from({ length: 3_000 }, (_, i) => `w${i % 2_500}é`)));
    for (const [i, word] of words.entries()) ids.add(word, wordHash(word), i * 3 + 1);
    words.forEach((word, i) => {
      const text = `["x","${word}",1]`;
      expect(ids.find(text, 6, 6 + word.length, wordHash(word))).toBe(i * 3 + 1);
      expect(ids.get(word)).toBe(i * 3 + 1);
    });
    expect(ids.get('w1')).toBe(-1);
    expect(ids.vocabulary().words).toEqual(words);
  });
});

describe('PairLookup.fromTable', () => {
  /** The entries in slot order, stably sorted by key: how the lookup was first built. */
  const reference = (table: PairTable): { keys: Int32Array; values: Uint32Array } => {
    const entries: [number, number][] = [];
    for (let i = 0; i < table.slots.length; i += 2) {
      const key = table.slots[i] ?? -1;
      if (key !== -1) entries.push([key, table.slots[i + 1] ?? 0]);
    }
    entries.sort((a, b) => a[0] - b[0]);
    return { keys: Int32Array.from(entries, (e) => e[0]), values: Uint32Array.from(entries, (e) => e[1]) };
  };

  it('sorts the entries by key, negative keys included, and finds each', () => {
    for (let seed = 1; seed <= 10; seed++) {
      const next = seededRandom(seed);
      const table = new PairTable();
      const expected = new Map<number, number>();
      for (let i = 0; i < 2_000 * seed; i++) {
        const key = Math.floor(next() * 2 ** 32) - 2 ** 31;
        if (key === -1 || expected.has(key)) continue;
        table.set(key, i);
        expected.set(key, i);
      }
      const lookup = PairLookup.fromTable(table);
      const { keys, values } = reference(table);
      expect(lookup.keys).toEqual(keys);
      expect(lookup.values).toEqual(values);
      for (const [key, value] of expected) expect(lookup.get(key)).toBe(value);
    }
  });

  it('keeps the slot order of keys no stored analysis holds (not 32-bit integers)', () => {
    const table = new PairTable();
    for (const [key, value] of [
      [2 ** 31 + 5, 1],
      [7, 2],
      [2 ** 31 + 5, 3],
      [-(2 ** 31) + 5, 4],
      [1.5, 5],
      [1, 6],
    ] as const)
      table.set(key, value);
    const lookup = PairLookup.fromTable(table);
    const { keys, values } = reference(table);
    expect(lookup.keys).toEqual(keys);
    expect(lookup.values).toEqual(values);
  });
});

describe('RawRuns', () => {
  it('gives each run back: small counts in a byte, any other frequency as a 32-bit float', () => {
    const next = seededRandom(3);
    const runs = new RawRuns();
    const pushed: [number, number, number][] = [];
    // Past one block of a million runs, so reads cross blocks.
    for (let i = 0; i < 1_100_000; i++) {
      const term = i % 1000 === 0 ? MAX_TERMS - 1 : Math.floor(next() * 300_000);
      const roll = next();
      const tf =
        roll < 0.98
          ? Math.floor(next() * 5)
          : ([255, 256, 70_000, 0.1, -2, Number.NaN, 254, -0][Math.floor(next() * 8)] ?? 0);
      const field = Math.floor(next() * 4);
      runs.push(term, tf, field);
      pushed.push([term, Math.fround(tf), field]);
    }
    const read: [number, number, number][] = [];
    runs.read(0, runs.size, (term, tf, field) => {
      read.push([term, tf, field]);
    });
    expect(read.length).toBe(pushed.length);
    for (let i = 0; i < read.length; i++) {
      const [term, tf, field] = read[i] ?? [0, 0, 0];
      const [t, f, d] = pushed[i] ?? [0, 0, 0];
      if (term !== t || field !== d || !(Object.is(tf, f) || (tf === 0 && f === 0)))
        throw new Error(`run ${i}: read ${[term, tf, field]}, pushed ${[t, f, d]}`);
    }
  });

  it('spills full blocks to a file and reads them back, again and again, and deletes the file on close', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-runs-test-'));
    try {
      const file = path.join(dir, 'runs');
      const runs = new RawRuns();
      const pushed: number[] = [];
      for (let i = 0; i < 2_300_000; i++) {
        // Spilling starts with nothing full yet; the blocks after are written as they fill.
        if (i === 500_000) runs.spillTo(file);
        const tf = i % 997 === 0 ? 1_000 : i % 5;
        runs.push(i % 300_007, tf, i % 4);
        pushed.push(i % 300_007, tf, i % 4);
      }
      expect(runs.spilled).toBe(true);
      // Two full blocks of 5 MB in the file; the third, filling, stays in memory.
      expect(fs.statSync(file).size).toBe(2 * 5 * 1_048_576);
      runs.releaseBefore(runs.size);
      for (let pass = 0; pass < 2; pass++) {
        const read: number[] = [];
        // Chunk-sized reads that cross block boundaries, as a build's passes make them.
        for (let start = 0; start < runs.size; start += 999_983)
          runs.read(start, Math.min(runs.size, start + 999_983), (term, tf, field) => {
            read.push(term, tf, field);
          });
        expect(read.length).toBe(pushed.length);
        for (let i = 0; i < read.length; i++)
          if (read[i] !== pushed[i]) throw new Error(`pass ${pass}, value ${i}: ${read[i]} not ${pushed[i]}`);
      }
      runs.close();
      expect(fs.existsSync(file)).toBe(false);
      expect(() => runs.read(0, 1, () => {})).toThrow(/released/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('releases the blocks read past, and refuses to read them again', () => {
    const runs = new RawRuns();
    for (let i = 0; i < 2_100_000; i++) runs.push(i % 7, 1, 0);
    runs.releaseBefore(2_000_000);
    expect(() => runs.read(1_048_575, 1_048_577, () => {})).toThrow(/released/);
    let n = 0;
    runs.read(2_097_152, runs.size, () => {
      n++;
    });
    expect(n).toBe(2_100_000 - 2_097_152);
  });
});
