import { describe, expect, it } from 'vitest';
import { globMatcher } from './glob.ts';

describe('globMatcher', () => {
  it('matches the patterns configs use to leave files out', () => {
    const todo = globMatcher('**/TODO.md');
    expect(todo?.('TODO.md')).toBe(true);
    expect(todo?.('guide/deep/TODO.md')).toBe(true);
    expect(todo?.('guide/TODO.mdx')).toBe(false);
    const drafts = globMatcher('./drafts/**');
    expect(drafts?.('drafts/a.md')).toBe(true);
    expect(drafts?.('guide/drafts/a.md')).toBe(false);
    expect(globMatcher('*.draft.md')?.('x.draft.md')).toBe(true);
    expect(globMatcher('*.draft.md')?.('a/x.draft.md')).toBe(false);
  });

  it('declines what it does not read, and stays fast on patterns that make regexes backtrack', () => {
    expect(globMatcher('{a,b}.md')).toBeNull();
    expect(globMatcher('!keep.md')).toBeNull();
    const nasty = globMatcher(`${'*a'.repeat(40)}b`);
    const started = Date.now();
    expect(nasty?.('a'.repeat(200))).toBe(false);
    expect(globMatcher('**/**/**/**/**/x')?.(`${'d/'.repeat(60)}y`)).toBe(false);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
