import { describe, expect, it } from 'vitest';
import { fingerprint, TextKeyedCache } from './text-keyed-cache.ts';

/** A copy of `text` that is a different string object, as storage hands out on every read. */
const fresh = (text: string): string => JSON.parse(JSON.stringify(text)) as string;

describe('TextKeyedCache', () => {
  it('finds a text again from a fresh copy of it, and makes its value once', () => {
    const cache = new TextKeyedCache<number>(10);
    let made = 0;
    const text = 'Install the CLI with Homebrew. '.repeat(20);
    expect(cache.getOrAdd(text, () => ++made)).toBe(1);
    expect(cache.getOrAdd(fresh(text), () => ++made)).toBe(1);
    expect(cache.get(fresh(text))).toBe(1);
    expect(made).toBe(1);
  });

  it('keeps texts of one fingerprint apart', () => {
    // Same length and the same characters wherever the fingerprint samples: only the text tells them apart.
    const a = 'a'.repeat(1000);
    const sampled = new Set<number>([999]);
    for (let k = 0; k < 32; k++) sampled.add(Math.floor((k * 1000) / 32));
    const at = [...Array(1000).keys()].find((i) => !sampled.has(i)) as number;
    const b = `${a.slice(0, at)}b${a.slice(at + 1)}`;
    expect(fingerprint(b)).toBe(fingerprint(a));
    const cache = new TextKeyedCache<string>(10);
    expect(cache.getOrAdd(a, () => 'A')).toBe('A');
    expect(cache.getOrAdd(b, () => 'B')).toBe('B');
    expect(cache.get(fresh(a))).toBe('A');
    expect(cache.get(fresh(b))).toBe('B');
    expect(cache.get(`${a.slice(1)}c`)).toBeUndefined();
  });

  it('holds at most its limit of entries', () => {
    const cache = new TextKeyedCache<number>(50);
    for (let i = 0; i < 500; i++) {
      cache.getOrAdd(`chunk ${i}`, () => i);
      expect(cache.size).toBeLessThanOrEqual(50);
    }
    // Whatever is kept is right.
    for (let i = 0; i < 500; i++) expect([undefined, i]).toContain(cache.get(`chunk ${i}`));
  });
});
