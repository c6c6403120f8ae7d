import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { RACY_MS } from '../ingest/contained-file.ts';
import { getIngestionJob, listIngestionJobs } from '../ingest/jobs.ts';
import { nowIso } from '../storage/ids.ts';
import { IngestionRunner } from '../tenancy/ingestion-runner.ts';
import { createOrganization } from '../tenancy/organizations.ts';
import { createSite } from '../tenancy/sites.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../testing/databases.ts';
import { checkoutBranch, commitFiles, createRepo, sampleDocs } from '../testing/git-repos.ts';
import { cloneFolder, type GitWorkspace, remoteHead } from './git-checkout.ts';
import { ingestGitSite } from './git-ingestion.ts';
import { startGitPoller } from './git-poller.ts';
import { dueGitPolls, getGitSource, jobCommit, setGitSource } from './git-sources.ts';
import { handleGitPush } from './git-webhook.ts';

const silent = pino({ level: 'silent' });

async function waitFor<T>(read: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.each(dialects)('git sources on %s', (dialect) => {
  let database: TestDatabase;
  let temp: string;
  let repo: string;
  let workspace: GitWorkspace;
  let organizationId: string;

  async function newSite(domain: string) {
    return createSite(database.storage, { organizationId, domain });
  }

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    temp = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-git-'));
    repo = path.join(temp, 'repo');
    createRepo(repo, sampleDocs());
    workspace = {
      dataDir: path.join(temp, 'data'),
      env: loadConfig().git.env,
      serverCredentialsForApiSources: false,
    };
    organizationId = (await createOrganization(database.storage, { name: 'git' })).id;
  });
  afterAll(async () => {
    await database?.drop();
    fs.rmSync(temp, { recursive: true, force: true });
  });

  it('clones a subdir, then re-parses only the page a new commit changed', async () => {
    const { storage } = database;
    const site = await newSite('git-subdir');
    await setGitSource(storage, site.id, {
      url: repo,
      branch: null,
      subdir: 'docs',
      pollMinutes: null,
      setBy: 'cli',
    });
    const first = await ingestGitSite(storage, workspace, site.id);
    expect(first.counts).toMatchObject({ pages: 3, added: 3 });
    const paths = await storage.db
      .selectFrom('pages')
      .select('path')
      .where('site_id', '=', site.id)
      .execute();
    // README.md is outside docs/: not a page.
    expect(paths.map((p) => p.path).sort()).toEqual(['index', 'install', 'usage']);
    // The clone sits under the data folder, named by the site id; the default branch was learnt.
    expect(fs.existsSync(path.join(cloneFolder(workspace.dataDir, site.id), '.git'))).toBe(true);
    expect((await getGitSource(storage, site.id))?.branch).toBe('main');
    expect(await jobCommit(storage, first.job.id)).toBe(first.commit);

    const second = commitFiles(repo, {
      'docs/usage.md': '# Usage\n\nTurn the widget on with the red switch.\n',
    });
    const again = await ingestGitSite(storage, workspace, site.id);
    expect(again.commit).toBe(second);
    expect(again.counts).toMatchObject({ pages: 3, added: 0, updated: 1, unchanged: 2, removed: 0 });
    expect(await jobCommit(storage, again.job.id)).toBe(second);
    expect((await getGitSource(storage, site.id))?.checked_out_commit).toBe(second);
  });

  it("learns the remote's default branch again when a kept clone's branch is cleared", async () => {
    const { storage } = database;
    const site = await newSite('git-relearn');
    const source = { url: repo, branch: null, subdir: 'docs', pollMinutes: null, setBy: 'cli' as const };
    await setGitSource(storage, site.id, source);
    await ingestGitSite(storage, workspace, site.id);
    expect((await getGitSource(storage, site.id))?.branch).toBe('main');
    // As `sites set-git` without --branch does: the branch is cleared, the clone (checked out detached) kept.
    await setGitSource(storage, site.id, { ...source, subdir: '' });
    expect((await getGitSource(storage, site.id))?.branch).toBeNull();
    const again = await ingestGitSite(storage, workspace, site.id);
    expect(again.counts.pages).toBeGreaterThan(3);
    expect((await getGitSource(storage, site.id))?.branch).toBe('main');
  });

  it('leaves the pages a new commit did not touch unread: the checkout keeps their files as they were', async () => {
    const { storage } = database;
    const site = await newSite('git-stamps');
    await setGitSource(storage, site.id, {
      url: repo,
      branch: null,
      subdir: 'docs',
      pollMinutes: null,
      setBy: 'cli',
    });
    await ingestGitSite(storage, workspace, site.id);
    // Files just checked out are too fresh for a stamp (RACY_MS); once settled, a read stamps them.
    await sleep(RACY_MS + 200);
    expect((await ingestGitSite(storage, workspace, site.id)).counts).toMatchObject({ unchanged: 3 });
    commitFiles(repo, { 'docs/install.md': '# Install\n\nRun the installer from the blue folder.\n' });
    const again = await ingestGitSite(storage, workspace, site.id);
    expect(again.counts).toMatchObject({ pages: 3, updated: 1, unchanged: 2 });
    expect(again.pagesByStamp).toBe(2);
  });

  it('follows the branch it was given', async () => {
    const { storage } = database;
    const branched = path.join(temp, 'branched');
    createRepo(branched, { 'index.md': '# Main\n\nOn main.\n' });
    checkoutBranch(branched, 'v2');
    commitFiles(branched, { 'index.md': '# Version two\n\nOn v2.\n', 'new.md': '# New\n\nOnly on v2.\n' });
    checkoutBranch(branched, 'main');
    const site = await newSite('git-branch');
    await setGitSource(storage, site.id, {
      url: branched,
      branch: 'v2',
      subdir: '',
      pollMinutes: null,
      setBy: 'cli',
    });
    const result = await ingestGitSite(storage, workspace, site.id);
    expect(result.counts.pages).toBe(2);
    const titles = await storage.db
      .selectFrom('pages')
      .select('title')
      .where('site_id', '=', site.id)
      .execute();
    expect(titles.map((t) => t.title).sort()).toEqual(['New', 'Version two']);
  });

  it('follows a tag given as the branch: polls its peeled commit and takes a push that moves it', async () => {
    const { storage } = database;
    const tagged = path.join(temp, 'tagged');
    createRepo(tagged, { 'index.md': '# One\n\nRelease one.\n' });
    const tag = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@docent.invalid', 'tag', ...args], {
        cwd: tagged,
      });
    tag('-a', '-m', 'release', 'release');
    const site = await newSite('git-tag');
    await setGitSource(storage, site.id, {
      url: tagged,
      branch: 'release',
      subdir: '',
      pollMinutes: null,
      setBy: 'cli',
    });
    const first = await ingestGitSite(storage, workspace, site.id);
    const request = {
      siteId: site.id,
      organizationId,
      remote: { kind: 'local' as const, url: tagged },
      branch: 'release',
      serverCredentials: true,
    };
    // The commit, not the annotated tag's own object: else every poll took the tag for a new commit.
    expect(await remoteHead(workspace, request)).toBe(first.commit);

    const moved = commitFiles(tagged, { 'index.md': '# Two\n\nRelease two.\n' });
    tag('-f', '-a', '-m', 'release', 'release');
    expect(await remoteHead(workspace, request)).toBe(moved);
    const second = await ingestGitSite(storage, workspace, site.id);
    expect(second.commit).toBe(moved);
    expect(second.counts.updated).toBe(1);

    const requested: string[] = [];
    const ingestions = {
      requestGit: async (_storage: unknown, siteId: string) => {
        requested.push(siteId);
        return { jobId: 'ing_tag', after: false };
      },
    } as unknown as IngestionRunner;
    const secret = (await getGitSource(storage, site.id))?.hook_secret;
    const push = (ref: string) =>
      handleGitPush(
        { storage, ingestions },
        {
          domain: 'git-tag',
          headers: { gitlabToken: secret, gitlabEvent: 'Tag Push Hook' },
          body: JSON.stringify({ ref, after: 'a'.repeat(40) }),
        },
      );
    expect(await push('refs/tags/release')).toMatchObject({ kind: 'accepted' });
    expect(await push('refs/tags/other')).toMatchObject({ kind: 'ignored', reason: 'branch' });
    expect(requested).toEqual([site.id]);
  });

  it("follows a tag of a tenant's repository under the docs root: its peeled commit, lightweight or annotated", async () => {
    const { storage } = database;
    const tenants = path.join(temp, 'tenants-tagged');
    const tagged = path.join(tenants, 'tagged');
    createRepo(tagged, { 'index.md': '# One\n\nRelease one.\n' });
    const tag = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@docent.invalid', 'tag', ...args], {
        cwd: tagged,
      });
    tag('-a', '-m', 'release', 'release');
    tag('light');
    const tenantWorkspace = { ...workspace, localRoot: tenants };
    const site = await newSite('git-tag-tenant');
    await setGitSource(storage, site.id, {
      url: tagged,
      branch: 'release',
      subdir: '',
      pollMinutes: 1,
      setBy: 'cli',
    });
    const first = await ingestGitSite(storage, tenantWorkspace, site.id);
    const request = (branch: string) => ({
      siteId: site.id,
      organizationId,
      remote: { kind: 'local' as const, url: tagged },
      branch,
      serverCredentials: true,
    });
    // The commit, as the clone checked it out: else every poll took the tag for a new commit.
    expect(await remoteHead(tenantWorkspace, request('release'))).toBe(first.commit);
    expect(await remoteHead(tenantWorkspace, request('light'))).toBe(first.commit);
    // Packed, as `git gc` or a clone leaves them.
    execFileSync('git', ['pack-refs', '--all'], { cwd: tagged });
    expect(await remoteHead(tenantWorkspace, request('release'))).toBe(first.commit);
    // A loose ref naming a packed object (a tag fetched into the repository since its last gc).
    tag('-f', '-a', '-m', 'release again', 'release');
    execFileSync('git', ['repack', '-a', '-d', '-q'], { cwd: tagged });
    await ingestGitSite(storage, tenantWorkspace, site.id);
    expect(await remoteHead(tenantWorkspace, request('release'))).toBe(first.commit);
    const moved = commitFiles(tagged, { 'index.md': '# Two\n\nRelease two.\n' });
    tag('-f', '-a', '-m', 'release', 'release');
    expect(await remoteHead(tenantWorkspace, request('release'))).toBe(moved);
  });

  it('warns of a submodule in the docs folder, left empty as submodules are never fetched', async () => {
    const { storage } = database;
    const withModule = path.join(temp, 'with-module');
    createRepo(withModule, { 'docs/index.md': '# Index\n\nHere.\n', 'README.md': '# Readme\n' });
    const gitIn = (...args: string[]) =>
      execFileSync(
        'git',
        [
          '-c',
          'user.name=T',
          '-c',
          'user.email=t@docent.invalid',
          '-c',
          'protocol.file.allow=always',
          ...args,
        ],
        { cwd: withModule, stdio: 'ignore' },
      );
    gitIn('submodule', 'add', '-q', repo, 'docs/vendor/guide');
    gitIn('submodule', 'add', '-q', repo, 'outside');
    gitIn('commit', '-q', '-m', 'modules');
    const site = await newSite('git-submodule');
    await setGitSource(storage, site.id, {
      url: withModule,
      branch: 'main',
      subdir: 'docs',
      pollMinutes: null,
      setBy: 'cli',
    });
    const result = await ingestGitSite(storage, workspace, site.id);
    expect(result.counts.pages).toBe(1);
    // Before: no word of it, and the submodule's pages were simply missing.
    expect(result.warnings).toEqual([
      {
        file: 'vendor/guide',
        message: 'is a git submodule, which is not fetched (another repository); its pages are not indexed',
      },
    ]);
    expect(fs.readdirSync(path.join(cloneFolder(workspace.dataDir, site.id), 'docs/vendor/guide'))).toEqual(
      [],
    );
  });

  it('fails the job with git’s message when the repository cannot be cloned', async () => {
    const { storage } = database;
    const site = await newSite('git-missing');
    await setGitSource(storage, site.id, {
      url: path.join(temp, 'no-such-repo'),
      branch: null,
      subdir: '',
      pollMinutes: null,
      setBy: 'cli',
    });
    await expect(ingestGitSite(storage, workspace, site.id)).rejects.toThrow(/git clone failed/);
    const [job] = await listIngestionJobs(storage, site.id);
    expect(job?.status).toBe('failure');
    expect(job?.error).toMatch(
      /git clone failed: .*(does not exist|does not appear to be a git repository)/i,
    );
    expect(fs.existsSync(cloneFolder(workspace.dataDir, site.id))).toBe(false);

    // A clone that starts and fails (no such branch): git's "Cloning into '<the data folder>'…" is not
    // passed on. The server's folders are not the caller's business.
    const branchless = await newSite('git-no-branch');
    await setGitSource(storage, branchless.id, {
      url: repo,
      branch: 'no-such-branch',
      subdir: '',
      pollMinutes: null,
      setBy: 'cli',
    });
    await expect(ingestGitSite(storage, workspace, branchless.id)).rejects.toThrow(/git clone failed/);
    const [failed] = await listIngestionJobs(storage, branchless.id);
    expect(failed?.error).toMatch(/no-such-branch not found/);
    expect(failed?.error).not.toContain(workspace.dataDir);
    expect(failed?.error).not.toContain('Cloning into');
  });

  it('says so when the repository has no commits, or its subdir no pages, naming no server folder', async () => {
    const { storage } = database;
    const empty = path.join(temp, 'empty.git');
    fs.mkdirSync(empty);
    execFileSync('git', ['init', '-q', '--bare', empty]);
    const site = await newSite('git-empty');
    await setGitSource(storage, site.id, {
      url: empty,
      branch: null,
      subdir: '',
      pollMinutes: null,
      setBy: 'cli',
    });
    await expect(ingestGitSite(storage, workspace, site.id)).rejects.toThrow(/has no commits yet/);
    await expect(ingestGitSite(storage, workspace, site.id)).rejects.toThrow(/has no commits yet/);

    const emptied = path.join(temp, 'emptied');
    createRepo(emptied, { ...sampleDocs(), 'docs/notes.txt': 'Not a page.\n' });
    const docs = await newSite('git-emptied');
    await setGitSource(storage, docs.id, {
      url: emptied,
      branch: null,
      subdir: 'docs',
      pollMinutes: null,
      setBy: 'cli',
    });
    const served = (await ingestGitSite(storage, workspace, docs.id)).commit;
    const gone = commitFiles(emptied, {
      'docs/index.md': null,
      'docs/install.md': null,
      'docs/usage.md': null,
    });
    const refused = ingestGitSite(storage, workspace, docs.id);
    await expect(refused).rejects.toThrow(
      `The folder docs at commit ${gone.slice(0, 12)} has no pages to index: ingesting it would remove all 3 pages`,
    );
    const [job] = await listIngestionJobs(storage, docs.id);
    expect(job?.error).not.toContain(workspace.dataDir);
    // The site still serves the commit before: that is its commit (the poller then tries the new one
    // again), not the one that failed.
    expect((await getGitSource(storage, docs.id))?.checked_out_commit).toBe(served);
  });

  it('refuses a subdir that a symlink in the repository leads outside the clone', async () => {
    const { storage } = database;
    const linked = path.join(temp, 'linked');
    createRepo(linked, { 'index.md': '# Index\n\nText.\n' });
    fs.symlinkSync('/etc', path.join(linked, 'docs'));
    commitFiles(linked, {});
    const site = await newSite('git-symlink');
    await setGitSource(storage, site.id, {
      url: linked,
      branch: null,
      subdir: 'docs',
      pollMinutes: null,
      setBy: 'cli',
    });
    await expect(ingestGitSite(storage, workspace, site.id)).rejects.toThrow(/leads outside the repository/);
    const [job] = await listIngestionJobs(storage, site.id);
    expect(job).toMatchObject({
      status: 'failure',
      error: expect.stringMatching(/subdir "docs" leads outside/),
    });
  });

  it("polls a tenant's repository under the docs root through copies, and ingests once it moves", async () => {
    const { storage } = database;
    const tenants = path.join(temp, 'tenants');
    const polled = path.join(tenants, 'polled');
    createRepo(polled, { 'index.md': '# Polled\n\nFirst.\n' });
    const tenantWorkspace = { ...workspace, localRoot: tenants };
    const site = await newSite('git-poll-tenant');
    await setGitSource(storage, site.id, {
      url: polled,
      branch: 'main',
      subdir: '',
      pollMinutes: 1,
      setBy: 'cli',
    });
    const first = await ingestGitSite(storage, tenantWorkspace, site.id);
    const moved = commitFiles(polled, { 'index.md': '# Polled\n\nSecond.\n' });
    // The tenant's config would have git read any file (here one that is no config, which fails every git
    // command in the repository); the copies git reads carry Docent's own.
    const notConfig = path.join(temp, 'not-config.txt');
    fs.writeFileSync(notConfig, '[SECRET-LINE\n');
    fs.appendFileSync(path.join(polled, '.git/config'), `[include]\n\tpath = ${notConfig}\n`);
    const poller = startGitPoller(
      { storage, ingestions: new IngestionRunner(silent, null, tenantWorkspace), logger: silent },
      { checkEveryMs: 40, minuteMs: 500 },
    );
    let job: Awaited<ReturnType<typeof listIngestionJobs>>[number];
    try {
      job = await waitFor(async () => {
        const jobs = await listIngestionJobs(storage, site.id);
        return jobs.find((j) => j.id !== first.job.id && j.status === 'success');
      });
    } finally {
      // Stopped before the folder is read: a later check may be copying the repository at that moment.
      await poller.stop();
    }
    expect(await jobCommit(storage, job.id)).toBe(moved);
    // No copy is left behind beside the clones.
    expect(
      fs.readdirSync(path.join(workspace.dataDir, 'git')).filter((f) => f.startsWith('.source-')),
    ).toEqual([]);
  });

  it('polls a deleted branch: one failed job tells the owner, not one a poll, and it resumes when back', async () => {
    const { storage } = database;
    const gone = path.join(temp, 'gone');
    createRepo(gone, { 'index.md': '# Gone\n\nFirst.\n' });
    checkoutBranch(gone, 'feature');
    const site = await newSite('git-gone');
    await setGitSource(storage, site.id, {
      url: gone,
      branch: 'feature',
      subdir: '',
      pollMinutes: 1,
      setBy: 'cli',
    });
    await ingestGitSite(storage, workspace, site.id);
    checkoutBranch(gone, 'main');
    execFileSync('git', ['branch', '-q', '-D', 'feature'], { cwd: gone });
    const runner = new IngestionRunner(silent, null, workspace);
    const poller = startGitPoller(
      { storage, ingestions: runner, logger: silent },
      { checkEveryMs: 40, minuteMs: 300 },
    );
    try {
      const failed = await waitFor(async () =>
        (await listIngestionJobs(storage, site.id)).find((j) => j.status === 'failure'),
      );
      // Before: only a warning in the server's log, every poll; the job list showed nothing.
      expect(failed.error).toBe(
        'polling: git ls-remote found no branch or tag "feature" on the remote; if it was renamed there, give the site the new name (sites set-git --branch, or git.branch in PATCH /v1/admin/sites/:domain)',
      );
      await sleep(1_500);
      expect((await listIngestionJobs(storage, site.id)).filter((j) => j.status === 'failure')).toHaveLength(
        1,
      );

      checkoutBranch(gone, 'feature');
      const back = commitFiles(gone, { 'index.md': '# Gone\n\nBack.\n' });
      await waitFor(async () => {
        const source = await getGitSource(storage, site.id);
        return source?.checked_out_commit === back ? source : undefined;
      });
    } finally {
      await poller.stop();
      await runner.idle();
    }
  });

  it('polls: ingests once the branch moves, with one of two servers claiming each check', async () => {
    const { storage } = database;
    const polled = path.join(temp, 'polled');
    createRepo(polled, { 'index.md': '# Polled\n\nFirst.\n', 'other.md': '# Other\n\nSame.\n' });
    const site = await newSite('git-poll');
    await setGitSource(storage, site.id, {
      url: polled,
      branch: 'main',
      subdir: '',
      pollMinutes: 1,
      setBy: 'cli',
    });
    const first = await ingestGitSite(storage, workspace, site.id);
    const runners = [
      new IngestionRunner(silent, null, workspace),
      new IngestionRunner(silent, null, workspace),
    ];
    // A minute of 500 ms: the test's clock, never a server's.
    const pollers = runners.map((ingestions) =>
      startGitPoller({ storage, ingestions, logger: silent }, { checkEveryMs: 40, minuteMs: 500 }),
    );
    try {
      // Nothing new on the remote: the pollers look and leave the site alone.
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      expect(await listIngestionJobs(storage, site.id)).toHaveLength(1);

      const moved = commitFiles(polled, { 'index.md': '# Polled\n\nSecond.\n' });
      const job = await waitFor(async () => {
        const jobs = await listIngestionJobs(storage, site.id);
        return jobs.find((j) => j.id !== first.job.id && j.status === 'success');
      });
      expect(job.counts).toMatchObject({ updated: 1, unchanged: 1 });
      expect(await jobCommit(storage, job.id)).toBe(moved);
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      // One ingestion for the one new commit, though two pollers ran.
      expect(await listIngestionJobs(storage, site.id)).toHaveLength(2);
      expect((await getIngestionJob(storage, job.id))?.status).toBe('success');

      // A commit whose ingestion fails (every page gone) is tried once, not at every poll after it.
      const emptied = commitFiles(polled, { 'index.md': null, 'other.md': null, 'notes.txt': 'No pages.\n' });
      await waitFor(async () =>
        (await listIngestionJobs(storage, site.id)).find((j) => j.status === 'failure'),
      );
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const afterFailure = await listIngestionJobs(storage, site.id);
      // Before: a new failed job every poll (each 500 ms here, each minute on a server).
      expect(afterFailure.filter((j) => j.status === 'failure')).toHaveLength(1);
      expect((await getGitSource(storage, site.id))?.checked_out_commit).toBe(moved);
      expect(await jobCommit(storage, afterFailure[0]?.id ?? '')).toBe(emptied);
      // The next commit is ingested again.
      const fixed = commitFiles(polled, { 'index.md': '# Polled\n\nBack.\n' });
      await waitFor(async () => {
        const source = await getGitSource(storage, site.id);
        return source?.checked_out_commit === fixed ? source : undefined;
      });
    } finally {
      await Promise.all(pollers.map((poller) => poller.stop()));
      await Promise.all(runners.map((runner) => runner.idle()));
    }
  });
});

describe('git poller shutdown', () => {
  it('stops a check waiting on a remote that never answers, without waiting for its timeout', async () => {
    const database = await createTestDatabase('sqlite');
    // Accepts connections and never answers: `git ls-remote` would wait for GIT_QUICK_TIMEOUT_MS.
    const sockets: net.Socket[] = [];
    const silentServer = net.createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silentServer.listen(0, '127.0.0.1', resolve));
    const { port } = silentServer.address() as net.AddressInfo;
    try {
      const { storage } = database;
      const org = await createOrganization(storage, { name: 'poll-stop' });
      const site = await createSite(storage, { organizationId: org.id, domain: 'poll-stop' });
      await setGitSource(storage, site.id, {
        url: `http://127.0.0.1:${port}/docs.git`,
        branch: 'main',
        subdir: '',
        pollMinutes: 1,
        setBy: 'cli',
      });
      const ingestions = new IngestionRunner(silent, null, {
        dataDir: path.join(os.tmpdir(), 'docent-poll-stop'),
        env: loadConfig().git.env,
        serverCredentialsForApiSources: false,
      });
      const poller = startGitPoller({ storage, ingestions, logger: silent }, { checkEveryMs: 60_000 });
      const round = poller.poll();
      await waitFor(async () => (sockets.length > 0 ? true : undefined), 10_000);
      const started = performance.now();
      await poller.stop();
      await round;
      expect(performance.now() - started).toBeLessThan(2_000);
      expect(await listIngestionJobs(storage, site.id)).toEqual([]);
    } finally {
      for (const socket of sockets) socket.destroy();
      silentServer.close();
      await database.drop();
    }
  });
});

describe('git poller fairness', () => {
  it("one organization's many slow remotes hold up neither the list of due checks nor another organization's check", async () => {
    const database = await createTestDatabase('sqlite');
    // Holds each connection a while, then drops it: each of its checks fails after `HOLD_MS`.
    const HOLD_MS = 400;
    let connections = 0;
    const slowServer = net.createServer((socket) => {
      connections++;
      setTimeout(() => socket.destroy(), HOLD_MS);
    });
    await new Promise<void>((resolve) => slowServer.listen(0, '127.0.0.1', resolve));
    const { port } = slowServer.address() as net.AddressInfo;
    const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-poll-fair-'));
    try {
      const { storage } = database;
      const slow = await createOrganization(storage, { name: 'slow' });
      const other = await createOrganization(storage, { name: 'other' });
      const due = async (siteId: string, at: string) =>
        storage.db
          .updateTable('site_git_sources')
          .set({ next_poll_at: at })
          .where('site_id', '=', siteId)
          .execute();
      for (let i = 0; i < 4; i++) {
        const site = await createSite(storage, { organizationId: slow.id, domain: `slow-${i}` });
        await setGitSource(storage, site.id, {
          url: `http://127.0.0.1:${port}/docs-${i}.git`,
          branch: 'main',
          subdir: '',
          pollMinutes: 1,
          setBy: 'api',
        });
        // Due before the other organization's source, so a list of the oldest due holds only these.
        await due(site.id, `2000-01-01T00:00:0${i}.000Z`);
      }
      const repo = path.join(temp, 'repo');
      createRepo(repo, { 'index.md': '# Other\n\nDocs.\n' });
      const site = await createSite(storage, { organizationId: other.id, domain: 'other' });
      await setGitSource(storage, site.id, {
        url: repo,
        branch: 'main',
        subdir: '',
        pollMinutes: 1,
        setBy: 'cli',
      });
      await due(site.id, '2000-01-02T00:00:00.000Z');

      // Each organization's oldest due source comes before any organization's second.
      const listed = await dueGitPolls(storage, nowIso(), 2);
      expect(listed.map((s) => s.site_id)).toContain(site.id);

      const ingestions = new IngestionRunner(silent, null, {
        dataDir: path.join(temp, 'data'),
        env: loadConfig().git.env,
        serverCredentialsForApiSources: false,
      });
      const poller = startGitPoller(
        { storage, ingestions, logger: silent },
        { checkEveryMs: 60_000, organizationBudgetMs: 100 },
      );
      try {
        await poller.poll();
        // The slow organization's first check used up its share of the round; its other three wait
        // for the next round (each of them held the round 400 ms before, 30 s with a silent remote).
        expect(connections).toBe(1);
        // The other organization's source was checked in the same round (its check was claimed).
        expect((await getGitSource(storage, site.id))?.next_poll_at).not.toBe('2000-01-02T00:00:00.000Z');
      } finally {
        await poller.stop();
        await ingestions.idle();
      }
    } finally {
      slowServer.close();
      await database.drop();
      fs.rmSync(temp, { recursive: true, force: true });
    }
  });
});
