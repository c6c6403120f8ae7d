import { describe, expect, it } from 'vitest';
import { boundedJson } from './bounded-json.ts';

describe('boundedJson', () => {
  it('writes what JSON.stringify writes for ordinary values, compact and indented', () => {
    const values: unknown[] = [
      null,
      true,
      3.5,
      Number.NaN,
      'a "quoted" \n line',
      [],
      {},
      [1, [2, []], { a: {} }],
      { a: 1, b: [true, null, 'x'], c: { d: { e: 'f' } }, skip: undefined },
    ];
    for (const value of values) {
      expect(boundedJson(value, 10_000)).toBe(JSON.stringify(value));
      expect(boundedJson(value, 10_000, 2)).toBe(JSON.stringify(value, null, 2));
    }
  });

  it('cuts a long value after maxChars, as the pages clip text', () => {
    const value = { list: Array.from({ length: 1_000 }, (_, i) => i) };
    expect(boundedJson(value, 50)).toBe(`${JSON.stringify(value).slice(0, 50)}…`);
  });

  it('names a cycle instead of throwing', () => {
    const node: Record<string, unknown> = { name: 'n' };
    node.self = node;
    node.list = [node];
    expect(boundedJson(node, 1_000)).toBe('{"name":"n","self":"(recursive)","list":["(recursive)"]}');
  });

  it('stops early on a small value whose shared parts make an exponential text', () => {
    // 2^60 leaves if written out in full.
    let value: unknown = 'leaf';
    for (let level = 0; level < 60; level++) value = { a: value, b: value };
    const started = performance.now();
    const text = boundedJson(value, 4_000, 2);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(text.length).toBe(4_001);
    expect(text.endsWith('…')).toBe(true);
  });
});
