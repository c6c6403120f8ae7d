import { describe, expect, it } from 'vitest';
import { StringTable } from './index-tables.ts';

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
