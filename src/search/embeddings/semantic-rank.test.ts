import { describe, expect, it } from 'vitest';
import { buildSiteVectors, nearestChunks, RRF_K, reciprocalRankFusion } from './semantic-rank.ts';
import { decodeNormalizedInto, encodeVector, normalized } from './vectors.ts';

const stored = (chunk: number, vector: number[]) => ({
  chunk,
  dimensions: vector.length,
  vector: encodeVector(vector),
});

describe('vectors as stored', () => {
  it('are little-endian float32, 4 bytes a dimension, read back at unit length', () => {
    const bytes = encodeVector([3, -4]);
    expect(bytes.byteLength).toBe(8);
    // 3.0f is 0x40400000: little-endian puts its low byte first.
    expect([...bytes.slice(0, 4)]).toEqual([0x00, 0x00, 0x40, 0x40]);
    const out = new Float32Array(2);
    expect(decodeNormalizedInto(bytes, out, 0, 2)).toBe(true);
    expect(out[0]).toBeCloseTo(0.6, 6);
    expect(out[1]).toBeCloseTo(-0.8, 6);
    expect(decodeNormalizedInto(bytes, out, 0, 3)).toBe(false);
    expect(decodeNormalizedInto(encodeVector([0, 0]), out, 0, 2)).toBe(false);
    expect(normalized([0, 0])).toBeNull();
  });
});

describe('nearestChunks', () => {
  it('ranks by cosine similarity, best first, filtered, ties to the lower chunk', () => {
    const vectors = buildSiteVectors([
      stored(0, [1, 0]),
      stored(1, [10, 10]),
      stored(2, [0, 5]),
      stored(3, [2, 2]),
      // Another dimension (a mixed table) or no length: left out.
      stored(4, [1, 1, 1]),
      stored(5, [0, 0]),
    ]);
    if (vectors === null) throw new Error('no vectors');
    expect([...vectors.chunkOf]).toEqual([0, 1, 2, 3]);
    const query = normalized([1, 1]) as Float32Array;
    const near = nearestChunks(vectors, query, 3, () => true);
    expect(near.map((n) => n.chunk)).toEqual([1, 3, 0]);
    expect(near[0]?.similarity).toBeCloseTo(1, 6);
    expect(nearestChunks(vectors, query, 2, (chunk) => chunk !== 1).map((n) => n.chunk)).toEqual([3, 0]);
    expect(nearestChunks(vectors, normalized([1, 1, 1]) as Float32Array, 3, () => true)).toEqual([]);
    expect(buildSiteVectors([])).toBeNull();
  });
});

describe('reciprocalRankFusion', () => {
  it('sums 1/(k + rank) over the rankings, scaled so first in both is 1', () => {
    const fused = reciprocalRankFusion(
      [
        [7, 8, 9],
        [9, 7],
      ],
      10,
    );
    expect(fused.map((f) => f.chunk)).toEqual([7, 9, 8]);
    const top = 2 / (RRF_K + 1);
    expect(fused[0]?.score).toBeCloseTo((1 / (RRF_K + 1) + 1 / (RRF_K + 2)) / top, 12);
    expect(fused[2]?.score).toBeCloseTo(1 / (RRF_K + 2) / top, 12);
    expect(reciprocalRankFusion([[1], [1]], 5)).toEqual([{ chunk: 1, score: 1 }]);
    expect(reciprocalRankFusion([[1, 2, 3], []], 2).map((f) => f.chunk)).toEqual([1, 2]);
  });
});
