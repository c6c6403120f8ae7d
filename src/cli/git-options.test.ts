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
});
