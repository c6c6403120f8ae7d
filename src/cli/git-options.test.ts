import { describe, expect, it } from 'vitest';
import { parseGitCliOptions } from './git-options.ts';

describe('parseGitCliOptions', () => {
  it('marks the source as the operator’s: git may use the server user’s credentials for it', () => {
    expect(parseGitCliOptions({ git: 'git@github.com:acme/private-docs.git', subdir: 'docs' })).toEqual({
      url: 'git@github.com:acme/private-docs.git',
      branch: null,
      subdir: 'docs',
      pollMinutes: null,
      setBy: 'cli',
    });
  });

  it('names the option whose value is refused (a bad branch or subdir was reported as --git)', () => {
    expect(() => parseGitCliOptions({ git: 'https://example.com/d.git', branch: '--upload-pack=x' })).toThrow(
      /^--branch: branch "--upload-pack=x" is not a valid branch name$/,
    );
    expect(() => parseGitCliOptions({ git: 'https://example.com/d.git', subdir: '../etc' })).toThrow(
      /^--subdir: subdir must not contain "\.\."$/,
    );
    expect(() => parseGitCliOptions({ git: 'ext::sh' })).toThrow(/^--git: /);
  });
});
