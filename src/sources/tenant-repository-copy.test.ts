import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DocsDirError } from '../tenancy/docs-dir.ts';
import { createRepo, sampleDocs } from '../testing/git-repos.ts';
import { copyTenantGitDir } from './tenant-repository-copy.ts';

describe('copyTenantGitDir', () => {
  let temp: string;
  afterEach(() => {
    fs.rmSync(temp, { recursive: true, force: true });
  });

  function setUp() {
    temp = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-repo-copy-'));
    const org = path.join(temp, 'root', 'org_b');
    const repo = path.join(org, 'repo');
    createRepo(repo, sampleDocs());
    const secret = path.join(temp, 'secret');
    createRepo(secret, { 'index.md': '# Secret\n\nSECRET-CANARY\n' });
    const near = path.join(temp, 'data');
    fs.mkdirSync(near);
    return { org, repo, secret, near };
  }

  it('copies a git folder file by file into a folder of Docent’s own', async () => {
    const { org, repo, near } = setUp();
    const copy = await copyTenantGitDir(path.join(repo, '.git'), org, near);
    expect(path.dirname(copy.url)).toBe(near);
    expect(fs.readFileSync(path.join(copy.url, 'HEAD'), 'utf8')).toBe(
      fs.readFileSync(path.join(repo, '.git/HEAD'), 'utf8'),
    );
    await copy.remove();
    expect(fs.readdirSync(near)).toEqual([]);
  });

  it('writes a config of its own: the tenant’s includes and settings never reach git', async () => {
    const { org, repo, near } = setUp();
    fs.appendFileSync(
      path.join(repo, '.git/config'),
      '[include]\n\tpath = /etc/passwd\n[core]\n\tfsmonitor = touch /tmp/x\n',
    );
    const copy = await copyTenantGitDir(path.join(repo, '.git'), org, near);
    const config = fs.readFileSync(path.join(copy.url, 'config'), 'utf8');
    expect(config).toBe('[core]\n\trepositoryformatversion = 0\n\tbare = true\n');
    await copy.remove();
    // For a head's commit, only what names refs is copied.
    const refs = await copyTenantGitDir(path.join(repo, '.git'), org, near, { refsOnly: true });
    expect(fs.readdirSync(refs.url).sort()).toEqual(['HEAD', 'config', 'objects', 'refs']);
    expect(fs.readdirSync(path.join(refs.url, 'objects'))).toEqual([]);
    await refs.remove();
  });

  it('copies a large file in pieces, exactly, and stops when asked', async () => {
    const { org, repo, near } = setUp();
    const big = Buffer.alloc(3 * 1024 * 1024 + 17, 7);
    big.write('end', big.length - 3);
    fs.writeFileSync(path.join(repo, '.git/objects/big.bin'), big);
    const copy = await copyTenantGitDir(path.join(repo, '.git'), org, near);
    expect(fs.readFileSync(path.join(copy.url, 'objects/big.bin')).equals(big)).toBe(true);
    await copy.remove();
    const stop = new AbortController();
    stop.abort(new Error('server stopping'));
    await expect(
      copyTenantGitDir(path.join(repo, '.git'), org, near, { signal: stop.signal }),
    ).rejects.toThrow('server stopping');
    expect(fs.readdirSync(near)).toEqual([]);
  });

  it('refuses a git folder swapped since its check for one outside the organization’s folder', async () => {
    const { org, repo, secret, near } = setUp();
    fs.renameSync(repo, `${repo}.was`);
    fs.symlinkSync(secret, repo);
    await expect(copyTenantGitDir(path.join(repo, '.git'), org, near)).rejects.toBeInstanceOf(DocsDirError);
    expect(fs.readdirSync(near)).toEqual([]);
  });

  it('refuses links and borrowed objects met while copying, and leaves no copy behind', async () => {
    const { org, repo, secret, near } = setUp();
    fs.symlinkSync(path.join(secret, '.git/HEAD'), path.join(repo, '.git/refs/stolen'));
    await expect(copyTenantGitDir(path.join(repo, '.git'), org, near)).rejects.toThrow(
      /something other than/,
    );
    fs.rmSync(path.join(repo, '.git/refs/stolen'));
    fs.writeFileSync(
      path.join(repo, '.git/objects/info/alternates'),
      `${path.join(secret, '.git/objects')}\n`,
    );
    await expect(copyTenantGitDir(path.join(repo, '.git'), org, near)).rejects.toThrow(/borrows objects/);
    expect(fs.readdirSync(near)).toEqual([]);
  });
});
