import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GitSourceError, parseBranch, parseGitUrl, parseSubdir, redactGitUrl } from './git-url.ts';

describe('parseGitUrl', () => {
  it('takes https, http, ssh and scp-like remotes as given', () => {
    for (const [url, kind] of [
      ['https://github.com/acme/docs.git', 'https'],
      ['http://git.internal/acme/docs', 'http'],
      ['ssh://git@github.com/acme/docs.git', 'ssh'],
      ['git@github.com:acme/docs.git', 'scp'],
      ['gitlab.example.com:group/docs', 'scp'],
    ] as const) {
      expect(parseGitUrl(url, { allowLocal: false }), url).toEqual({ kind, url });
    }
  });

  it('refuses remote helpers, options, other schemes and control characters', () => {
    for (const url of [
      'ext::sh -c touch% /tmp/pwned',
      'ext::sh',
      'fd::17',
      'foo::https://example.com/x',
      '--upload-pack=touch /tmp/pwned',
      '-oProxyCommand=x',
      'git://example.com/docs.git',
      'ftp://example.com/docs.git',
      'https://example.com/docs\n.git',
      'ssh://-oProxyCommand=x/docs',
      // The same, percent-encoded: git decodes it before ssh sees it.
      'ssh://%2doProxyCommand=x/docs',
      'ssh://%2DoProxyCommand=x@host/docs',
      'ssh://git@%2doProxyCommand=x/docs',
      'git@host:-docs',
      'https://',
      'https://example.com/',
      '',
    ]) {
      expect(() => parseGitUrl(url, { allowLocal: true }), url).toThrow(GitSourceError);
    }
    // scp-like in form, with a host ssh would take for an option: named as such, never a local path.
    for (const url of ['git@-oProxyCommand=x:path', '-oProxyCommand=x:path'])
      for (const allowLocal of [true, false])
        expect(() => parseGitUrl(url, { allowLocal }), url).toThrow(/must not start with "-"/);
  });

  it('refuses a password in the host:path shorthand, without echoing it (it was kept and shown as is)', () => {
    for (const allowLocal of [true, false]) {
      const refuse = () => parseGitUrl('oauth2:glpat-s3cret@gitlab.com:acme/docs.git', { allowLocal });
      expect(refuse).toThrow(/host:path takes no password/);
      expect(refuse).not.toThrow(/s3cret/);
    }
    expect(parseGitUrl('git@gitlab.com:acme/docs.git', { allowLocal: false }).kind).toBe('scp');
    // One stored before it was refused is still shown without its password.
    expect(redactGitUrl('oauth2:glpat-s3cret@gitlab.com:acme/docs.git')).toBe(
      'oauth2:***@gitlab.com:acme/docs.git',
    );
  });

  it('takes a local path or file:// only when local repositories are allowed', () => {
    expect(() => parseGitUrl('/srv/repos/docs', { allowLocal: false })).toThrow(/DOCENT_DOCS_ROOT/);
    expect(() => parseGitUrl('file:///etc', { allowLocal: false })).toThrow(/DOCENT_DOCS_ROOT/);
    expect(() => parseGitUrl('../other-tenant', { allowLocal: false })).toThrow(GitSourceError);
    expect(parseGitUrl('/srv/repos/docs', { allowLocal: true })).toEqual({
      kind: 'local',
      url: '/srv/repos/docs',
    });
    expect(parseGitUrl('file:///srv/repos/my%20docs', { allowLocal: true })).toEqual({
      kind: 'local',
      url: '/srv/repos/my docs',
    });
    expect(parseGitUrl('./repo', { allowLocal: true }).url).toBe(path.resolve('repo'));
  });
});

describe('parseBranch and parseSubdir', () => {
  it('refuses branch names git would take as options or refuse itself', () => {
    expect(parseBranch('release/2.x')).toBe('release/2.x');
    for (const bad of ['-f', '--orphan', 'a..b', 'a b', 'x.lock', 'a:b', '', '@', 'a/.hidden'])
      expect(() => parseBranch(bad), bad).toThrow(GitSourceError);
  });

  it('keeps a subdir inside the repository', () => {
    expect(parseSubdir('docs/')).toBe('docs');
    expect(parseSubdir('./site/docs')).toBe('site/docs');
    expect(parseSubdir('')).toBe('');
    for (const bad of ['../etc', 'docs/../../x', '/etc', 'C:/x', '.git', '.git/hooks'])
      expect(() => parseSubdir(bad), bad).toThrow(GitSourceError);
  });
});

describe('redactGitUrl', () => {
  it('hides passwords and tokens, in URLs and in git messages', () => {
    expect(redactGitUrl('https://user:s3cret@github.com/a/b.git')).toBe('https://***@github.com/a/b.git');
    expect(redactGitUrl('https://ghp_token@github.com/a/b.git')).toBe('https://***@github.com/a/b.git');
    expect(redactGitUrl("fatal: unable to access 'https://u:p@h/x/': 403")).toBe(
      "fatal: unable to access 'https://***@h/x/': 403",
    );
    expect(redactGitUrl('ssh://git:pw@host/x')).toBe('ssh://git:***@host/x');
    expect(redactGitUrl('git@github.com:a/b.git')).toBe('git@github.com:a/b.git');
    // A password holding a raw `@` (the authority ends at the last one): none of it shows.
    expect(redactGitUrl('https://user:p@ssw0rd@github.com/a/b.git')).toBe('https://***@github.com/a/b.git');
    expect(redactGitUrl('http://oauth2:t@k@en@h:8080/x')).toBe('http://***@h:8080/x');
    expect(redactGitUrl('ssh://git:p@ss@host/x')).toBe('ssh://git:***@host/x');
    expect(redactGitUrl("fatal: unable to access 'https://u:p@q@h/x/': 403 (see user@example.com)")).toBe(
      "fatal: unable to access 'https://***@h/x/': 403 (see user@example.com)",
    );
    // A token in the query string (GitLab's private_token, an access_token).
    expect(redactGitUrl('https://gitlab.example.com/a/b.git?private_token=SECRETQ&x=1#frag')).toBe(
      'https://gitlab.example.com/a/b.git?private_token=***&x=***#frag',
    );
    expect(redactGitUrl("fatal: unable to access 'https://h/x.git?access_token=abc/': 403")).toBe(
      "fatal: unable to access 'https://h/x.git?access_token=***': 403",
    );
  });
});
