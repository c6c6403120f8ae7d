import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lineOfJsonString, positionAt } from './json-position.ts';

/** The plain definition: count the line breaks before the offset. */
const reference = (text: string, offset: number) => {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(Math.max(offset, 0), text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: end - lineStart + 1 };
};

describe('positions in a JSON text', () => {
  it('gives every offset the line and column of the plain definition, across several texts', () => {
    const text = fc.stringMatching(/^[a-z\n"{}]{0,60}$/);
    fc.assert(
      fc.property(
        fc.array(fc.tuple(text, fc.integer({ min: -3, max: 70 })), { minLength: 1, maxLength: 6 }),
        (asks) => {
          for (const [t, offset] of asks) expect(positionAt(t, offset)).toEqual(reference(t, offset));
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it('finds the line of a string literal, or none', () => {
    const json = '{\n  "a": [\n    "intro",\n    "guide/setup"\n  ]\n}';
    expect(lineOfJsonString(json, 'guide/setup')).toBe(4);
    expect(lineOfJsonString(json, 'intro')).toBe(3);
    expect(lineOfJsonString(json, 'missing')).toBeUndefined();
  });
});
