import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { commitFiles, createRepo, sampleDocs } from '../testing/git-repos.ts';
import { MAX_CLONE_BYTES } from './git.ts';
import { cloneFolder, type GitCheckoutRequest, syncClone } from './git-checkout.ts';

describe('a fetch whose checkout outgrows the clone limit', () => {
  const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-checkout-'));
  afterAll(() => fs.rmSync(temp, { recursive: true, force: true }));

  it('is stopped while it writes, and its clone removed (a small fetch wrote 2 GB unwatched)', async () => {
    const repo = path.join(temp, 'repo');
    createRepo(repo, sampleDocs());
    // The real git, except that a checkout writes a file larger than the limit (sparse: no disk used)
    // and goes on, as the checkout of a highly compressible commit does.
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    const bin = path.join(temp, 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(
      path.join(bin, 'git'),
      `#!/bin/sh\nfor a in "$@"; do\n  if [ "$a" = checkout ]; then truncate -s ${MAX_CLONE_BYTES + 1024 * 1024} big.bin; exec sleep 60; fi\ndone\nexec ${JSON.stringify(realGit)} "$@"\n`,
      { mode: 0o755 },
    );
    const env = { ...loadConfig().git.env, PATH: `${bin}:${process.env.PATH ?? ''}` };
    const workspace = { dataDir: path.join(temp, 'data'), env, serverCredentialsForApiSources: false };
    const request: GitCheckoutRequest = {
      siteId: 'site_checkout',
      organizationId: 'org_checkout',
      remote: { kind: 'local', url: repo },
      branch: 'main',
      subdir: 'docs',
      serverCredentials: true,
    };
    // The first sync clones (git clone checks out itself); the second fetches, then checks out.
    await syncClone(workspace, request);
    commitFiles(repo, { 'docs/index.md': '# Welcome\n\nChanged.\n' });
    const started = Date.now();
    await expect(syncClone(workspace, request)).rejects.toThrow(
      `git checkout stopped: the repository is larger than ${MAX_CLONE_BYTES / 1024 / 1024} MB`,
    );
    // Stopped by the size watcher (it looks every 2 s), not by the 30 s a quick command may take.
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(fs.existsSync(cloneFolder(workspace.dataDir, request.siteId))).toBe(false);
  });
});
