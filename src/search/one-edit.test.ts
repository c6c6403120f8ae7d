import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { WordTable } from './index-tables.ts';
import { withinOneEdit, withinOneEditOfBytes } from './one-edit.ts';

// A small alphabet, so generated pairs are often one edit apart: two-, three- and four-byte characters
// (a surrogate pair) beside ASCII ones.
const near = fc.string({
  unit: fc.constantFrom('a', 'b', 'c', 'd', 'é', '€', '😀'),
  minLength: 0,
  maxLength: 7,
});
const bytesOf = (word: string): Uint8Array => new TextEncoder().encode(word);

describe('one edit', () => {
  it('answers on UTF-8 bytes exactly as on strings', () => {
    fc.assert(
      fc.property(near, near, fc.nat(3), (a, b, pad) => {
        // b sits inside a larger buffer, as a word does in the word table's bytes.
        const encoded = bytesOf(b);
        const bytes = new Uint8Array(pad * 2 + encoded.length).fill(0x7a);
        bytes.set(encoded, pad);
        expect(withinOneEditOfBytes(a, bytes, pad, pad + encoded.length)).toBe(withinOneEdit(a, b));
      }),
      { numRuns: 5000 },
    );
  });

  it('agrees with the edit distance (insertions, deletions, substitutions, adjacent swaps) being at most 1', () => {
    // Optimal string alignment distance over UTF-16 units, the plain dynamic programme.
    const distance = (a: string, b: string): number => {
      const d = Array.from({ length: a.length + 1 }, (_, i) =>
        Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
      );
      for (let i = 1; i <= a.length; i++)
        for (let j = 1; j <= b.length; j++) {
          const row = d[i] as number[];
          const up = d[i - 1] as number[];
          const cost = a[i - 1] === b[j - 1] ? 0 : 1;
          row[j] = Math.min((up[j] as number) + 1, (row[j - 1] as number) + 1, (up[j - 1] as number) + cost);
          if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
            row[j] = Math.min(row[j] as number, ((d[i - 2] as number[])[j - 2] as number) + 1);
        }
      return (d[a.length] as number[])[b.length] as number;
    };
    fc.assert(
      fc.property(near, near, (a, b) => {
        expect(withinOneEdit(a, b)).toBe(distance(a, b) <= 1);
      }),
      { numRuns: 5000 },
    );
  });

  it('finds the same neighbours in a word table as comparing every word', () => {
    const words = [
      'search',
      'serch',
      'seach',
      'searches',
      'scarch',
      'sëarch',
      'séarch',
      'searc',
      'stream',
      'x',
    ];
    const table = WordTable.fromWords(words);
    for (const query of [
      'serch',
      'search',
      'sëarch',
      'searchh',
      'seerch',
      'sarch',
      'searh',
      'searcx',
      'seérch',
      'sear😀',
      'sea😀ch',
    ]) {
      const expected = words
        .map((word, id) => ({ word, id }))
        .filter(({ word }) => word.length >= 4 && word[0] === query[0] && withinOneEdit(query, word))
        .map(({ id }) => id)
        .sort((x, y) => x - y);
      expect([...table.oneEditNeighbours(query)].sort((x, y) => x - y)).toEqual(expected);
    }
  });
});
