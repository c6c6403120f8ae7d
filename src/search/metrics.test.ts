import { describe, expect, it } from 'vitest';
import { distinctPages, firstRelevantRank, percentile, scoreResults } from './metrics.ts';

describe('page-level metrics', () => {
  it('reduces chunk hits to distinct pages before ranking', () => {
    expect(distinctPages(['a', 'a', 'b', 'a', 'c'])).toEqual(['a', 'b', 'c']);
    // `x` appears three times but is one page: the relevant `r` is the 2nd distinct page.
    expect(firstRelevantRank(['x', 'x', 'x', 'r'], ['r'])).toBe(2);
    expect(firstRelevantRank(['x'], ['r'])).toBeNull();
  });

  it('computes hit@1/5/10 and MRR@10 on a hand-made example', () => {
    const pages = (n: number, relevantAt: number | null): string[] =>
      Array.from({ length: n }, (_, i) => (i + 1 === relevantAt ? 'rel' : `p${i}`));
    const m = scoreResults([
      { rankedPages: pages(12, 1), relevant: ['rel'] }, // rank 1
      { rankedPages: pages(12, 3), relevant: ['rel', 'other'] }, // rank 3
      { rankedPages: pages(12, 7), relevant: ['rel'] }, // rank 7
      { rankedPages: pages(12, 11), relevant: ['rel'] }, // rank 11: beyond @10
      { rankedPages: [], relevant: ['rel'] }, // nothing found
    ]);
    expect(m.questions).toBe(5);
    expect(m.hitAt1).toBeCloseTo(1 / 5);
    expect(m.hitAt5).toBeCloseTo(2 / 5);
    expect(m.hitAt10).toBeCloseTo(3 / 5);
    expect(m.mrrAt10).toBeCloseTo((1 + 1 / 3 + 1 / 7) / 5);
    expect(m.latencyMs).toBeNull();
  });

  it('counts the first relevant page among several relevant ones', () => {
    const m = scoreResults([{ rankedPages: ['a', 'b', 'c'], relevant: ['c', 'b'] }]);
    expect(m.mrrAt10).toBeCloseTo(1 / 2);
  });

  it('reports nearest-rank latency percentiles', () => {
    const latencies = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(latencies, 50)).toBe(50);
    expect(percentile(latencies, 99)).toBe(99);
    const m = scoreResults(latencies.map((latencyMs) => ({ rankedPages: [], relevant: ['x'], latencyMs })));
    expect(m.latencyMs).toEqual({ p50: 50, p99: 99 });
  });
});
