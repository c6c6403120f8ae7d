import { describe, expect, it } from 'vitest';
import { resolveRequestedGitSource } from './git-api-source.ts';
import type { GitSourceRow } from './git-sources.ts';
import { sameGitPlace, usesServerCredentials } from './git-sources.ts';

describe('sameGitPlace', () => {
  const current = {
    site_id: 'site_1',
    url: 'https://github.com/acme/docs.git',
    branch: 'main',
    subdir: 'docs',
    poll_minutes: 15,
  } as GitSourceRow;
  const input = { url: current.url, branch: 'main', subdir: 'docs', pollMinutes: 5, setBy: 'api' as const };

  it('is the same place when only the polling interval differs, or the branch is left to the one learnt', () => {
    expect(sameGitPlace(input, current)).toBe(true);
    expect(sameGitPlace({ ...input, branch: null }, current)).toBe(true);
  });

  it('is another place for another repository, branch or folder, or when the site had none', () => {
    expect(sameGitPlace({ ...input, url: 'https://github.com/acme/other.git' }, current)).toBe(false);
    expect(sameGitPlace({ ...input, branch: 'v2' }, current)).toBe(false);
    expect(sameGitPlace({ ...input, subdir: '' }, current)).toBe(false);
    expect(sameGitPlace(input, undefined)).toBe(false);
  });
});

describe('usesServerCredentials', () => {
  it('lets git use the server user’s credentials for the operator’s sources, and for the API’s only when allowed', () => {
    expect(usesServerCredentials({ set_by: 'cli' }, false)).toBe(true);
    expect(usesServerCredentials({ set_by: 'api' }, false)).toBe(false);
    expect(usesServerCredentials({ set_by: 'api' }, true)).toBe(true);
  });

  it('counts a source an admin sets over the API as theirs', async () => {
    const source = await resolveRequestedGitSource({ url: 'https://github.com/acme/docs.git' }, null);
    expect(source.setBy).toBe('api');
  });
});
