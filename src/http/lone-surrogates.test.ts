import { describe, expect, it } from 'vitest';
import { mayHoldLoneSurrogates, replaceLoneSurrogates } from './lone-surrogates.ts';

describe('replaceLoneSurrogates', () => {
  it('makes each lone half of a UTF-16 pair U+FFFD, in strings and keys at any depth, and keeps pairs', () => {
    const json = '{"q":"cut \\ud83d","ok":"😀","list":["\\ude00 x",{"k\\ud800":"\\udbff\\udfff"}]}';
    expect(mayHoldLoneSurrogates(json)).toBe(true);
    expect(replaceLoneSurrogates(JSON.parse(json))).toEqual({
      q: 'cut \uFFFD',
      ok: '😀',
      list: ['\uFFFD x', { 'k\uFFFD': '\u{10FFFF}' }],
    });
    expect(replaceLoneSurrogates('\ud800\ud800')).toBe('\uFFFD\uFFFD');
  });

  it('needs no walk for a body without an escaped surrogate', () => {
    expect(mayHoldLoneSurrogates('{"q":"😀 plain \\n text"}')).toBe(false);
  });
});
