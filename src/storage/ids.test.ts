import { describe, expect, it } from 'vitest';
import { newId, randomBase62 } from './ids.ts';

describe('ids', () => {
  it('makes base62 strings of the asked length, across many pool refills, without repeats', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 5_000; i++) {
      const id = newId('thr');
      expect(id).toMatch(/^thr_[0-9A-Za-z]{20}$/);
      seen.add(id);
    }
    expect(seen.size).toBe(5_000);
    expect(randomBase62(0)).toBe('');
    expect(randomBase62(5_000)).toHaveLength(5_000);
  });

  it('puts the creation time first, so ids sort by when they were made', () => {
    const early = newId('msg', Date.UTC(2026, 0, 1));
    const later = newId('msg', Date.UTC(2026, 0, 1) + 1);
    const much = newId('msg', Date.UTC(2090, 0, 1));
    expect([much, later, early].sort()).toEqual([early, later, much]);
    expect(early.slice(0, 12)).toBe(newId('msg', Date.UTC(2026, 0, 1)).slice(0, 12));
    expect(early.slice(12)).not.toBe(newId('msg', Date.UTC(2026, 0, 1)).slice(12));
  });

  it('draws every character about equally often (no modulo bias)', () => {
    const counts = new Map<string, number>();
    const text = randomBase62(620_000);
    for (const ch of text) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    expect(counts.size).toBe(62);
    // Expected 10,000 each; a binomial standard deviation is ~99, so 6 sigma is far beyond chance,
    // while a modulo bias over 256 (chars 0–7 drawn 5/4 as often) would be off by ~2,000.
    for (const count of counts.values()) expect(Math.abs(count - 10_000)).toBeLessThan(600);
  });
});
