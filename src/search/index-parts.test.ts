import { describe, expect, it } from 'vitest';
import { IndexPartCutter, partCount } from './index-parts.ts';

describe('IndexPartCutter', () => {
  it('hands on each part once all its bytes are in, whatever order they come in', () => {
    const total = 1_000;
    const bytes = Uint8Array.from({ length: total }, (_, i) => (i * 7) % 251);
    const emitted = new Map<number, Uint8Array>();
    const cutter = new IndexPartCutter((part, data) => {
      expect(emitted.has(part)).toBe(false);
      emitted.set(part, data);
    }, 64);
    cutter.start(total);
    // Slices of odd sizes, written back to front, two of them empty.
    const cuts = [0, 3, 3, 70, 200, 201, 500, 640, 999, 1_000];
    for (let i = cuts.length - 1; i > 0; i--) {
      const from = cuts[i - 1] ?? 0;
      cutter.write(from, bytes.subarray(from, cuts[i]));
    }
    expect(cutter.unfinished).toBe(0);
    expect(emitted.size).toBe(Math.ceil(total / 64));
    const joined = [...emitted].sort(([a], [b]) => a - b).flatMap(([, data]) => [...data]);
    expect(joined).toEqual([...bytes]);
    // The last part is only as long as what is left.
    expect(emitted.get(15)?.byteLength).toBe(total - 15 * 64);
  });

  it('holds a part until it is whole, and refuses bytes outside the index', () => {
    const emitted: number[] = [];
    const cutter = new IndexPartCutter((part) => emitted.push(part), 10);
    cutter.start(25);
    cutter.write(0, new Uint8Array(9));
    expect(emitted).toEqual([]);
    expect(cutter.unfinished).toBe(1);
    cutter.write(9, new Uint8Array(2));
    expect(emitted).toEqual([0]);
    expect(() => cutter.write(20, new Uint8Array(6))).toThrow(/outside/);
    cutter.write(12, new Uint8Array(8));
    expect(emitted).toEqual([0]);
    cutter.write(11, new Uint8Array(1));
    expect(emitted).toEqual([0, 1]);
    expect(cutter.unfinished).toBe(0);
  });

  it('counts at least one part, even for nothing', () => {
    expect(partCount(0)).toBe(1);
    expect(partCount(2 * 1024 * 1024)).toBe(1);
    expect(partCount(2 * 1024 * 1024 + 1)).toBe(2);
  });
});
