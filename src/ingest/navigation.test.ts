import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizePageId, normalizeWrittenPageId } from './navigation.ts';

describe('normalizePageId', () => {
  it('normalizes what configs write', () => {
    expect(normalizePageId('/guides/setup.mdx')).toBe('guides/setup');
    expect(normalizePageId('./a//b/?x=1')).toBe('a/b');
    expect(normalizePageId('guides\\setup.md')).toBe('guides/setup');
    expect(normalizePageId('guides/setup')).toBe('guides/setup');
    expect(normalizePageId(' / ')).toBeNull();
  });

  it('gives what the written-form rules give, for plain ids and every other entry', () => {
    const piece = fc.constantFrom(
      'a',
      'Z',
      '0',
      '_',
      '-',
      '/',
      '.',
      'md',
      'mdx',
      '\\',
      '?',
      '#',
      ' ',
      '\t',
      './',
    );
    const entry = fc.array(piece, { maxLength: 12 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(entry, (raw) => {
        expect(normalizePageId(raw)).toBe(normalizeWrittenPageId(raw));
      }),
      { numRuns: 5_000 },
    );
  });
});
