import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cloneFolder } from '../../sources/git-checkout.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../../testing/databases.ts';
import { checkoutBranch, commitFiles, createRepo, sampleDocs } from '../../testing/git-repos.ts';
import { runCliInProcess } from '../../testing/run-cli-in-process.ts';
import { CliError } from '../context.ts';

describe.each(dialects)('docent init --git on %s', (dialect) => {
  let db: TestDatabase;
  let temp: string;
  let repo: string;
  let dataDir: string;

  beforeAll(async () => {
    db = await createTestDatabase(dialect);
    temp = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-git-cli-'));
    dataDir = path.join(temp, 'data');
    // The CLI reads its data folder from the environment, as an operator would set it.
    vi.stubEnv('DOCENT_DATA_DIR', dataDir);
    repo = path.join(temp, 'repo');
    createRepo(repo, { 'docs/index.md': '# On main\n\nThe main branch.\n' });
    checkoutBranch(repo, 'v2');
    commitFiles(repo, sampleDocs());
    checkoutBranch(repo, 'main');
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await db?.drop();
    fs.rmSync(temp, { recursive: true, force: true });
  });

  async function pageTitles(domain: string): Promise<string[]> {
    const rows = await db.storage.db
      .selectFrom('pages')
      .innerJoin('sites', 'sites.id', 'pages.site_id')
      .select('pages.title')
      .where('sites.domain', '=', domain)
      .execute();
    return rows.map((r) => r.title).sort();
  }

  it('clones a local repository at a branch and a subdir, then re-ingests only what a commit changed', async () => {
    const out = JSON.parse(
      await runCliInProcess(
        db.url,
        '--json',
        'init',
        '--site',
        'from-git',
        '--git',
        repo,
        '--branch',
        'v2',
        '--subdir',
        'docs',
      ),
    ) as { site: string; commit: string; webhookSecret: string; webhookPath: string };
    expect(out).toMatchObject({ site: 'from-git', webhookPath: '/v1/hooks/sites/from-git/git' });
    expect(out.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(out.webhookSecret).toMatch(/^dhk_/);
    expect(await pageTitles('from-git')).toEqual(['Install', 'Usage', 'Welcome']);
    const site = await db.storage.db
      .selectFrom('sites')
      .selectAll()
      .where('domain', '=', 'from-git')
      .executeTakeFirst();
    expect(fs.existsSync(path.join(cloneFolder(dataDir, site?.id ?? ''), '.git'))).toBe(true);

    checkoutBranch(repo, 'v2');
    const moved = commitFiles(repo, { 'docs/usage.md': '# Usage\n\nFlip the switch twice.\n' });
    // A commit on another branch is not fetched.
    checkoutBranch(repo, 'main');
    commitFiles(repo, { 'docs/index.md': '# Main moved\n\nNot v2.\n' });
    const again = JSON.parse(await runCliInProcess(db.url, '--json', 'ingest', '--site', 'from-git')) as {
      commit: string;
      counts: Record<string, number>;
    };
    expect(again.commit).toBe(moved);
    expect(again.counts).toMatchObject({ pages: 3, added: 0, updated: 1, unchanged: 2, removed: 0 });

    const shown = JSON.parse(await runCliInProcess(db.url, '--json', 'sites', 'show', 'from-git')) as {
      git: { branch: string; subdir: string; commit: string };
    };
    expect(shown.git).toMatchObject({ branch: 'v2', subdir: 'docs', commit: moved, setBy: 'cli' });
    // A source stored before migration 0019 reads 'api': the operator can see which to set again.
    await db.storage.db.updateTable('site_git_sources').set({ set_by: 'api' }).execute();
    expect(await runCliInProcess(db.url, 'sites', 'show', 'from-git')).toMatch(/ set by api\n/);
    await db.storage.db.updateTable('site_git_sources').set({ set_by: 'cli' }).execute();
    // A folder cannot be ingested into a git site by mistake.
    await expect(runCliInProcess(db.url, 'ingest', temp, '--site', 'from-git')).rejects.toThrow(
      /git repository/,
    );
    // init again names the command that updates a git site: without a folder.
    await expect(runCliInProcess(db.url, 'init', '--site', 'from-git', '--git', repo)).rejects.toThrow(
      'Site "from-git" already exists; use "ingest --site from-git" to update it',
    );
  });

  it('creates nothing when the repository cannot be cloned, and says why in one line', async () => {
    const attempt = runCliInProcess(db.url, 'init', '--site', 'no-repo', '--git', path.join(temp, 'missing'));
    await expect(attempt).rejects.toThrow(CliError);
    await expect(attempt).rejects.toThrow(/^git clone failed: .*\(nothing was created\)$/);
    const sites = await db.storage.db
      .selectFrom('sites')
      .select('domain')
      .where('domain', '=', 'no-repo')
      .execute();
    expect(sites).toEqual([]);
    const orgs = await db.storage.db
      .selectFrom('organizations')
      .select('name')
      .where('name', '=', 'no-repo')
      .execute();
    expect(orgs).toEqual([]);
  });

  it('creates nothing, and keeps no clone, when the folder read has no pages', async () => {
    commitFiles(repo, { 'assets/notes.txt': 'Not a page.\n' });
    const before = fs.existsSync(dataDir) ? fs.readdirSync(dataDir, { recursive: true }) : [];
    const attempt = runCliInProcess(
      db.url,
      'init',
      '--site',
      'no-pages',
      '--git',
      repo,
      '--subdir',
      'assets',
    );
    await expect(attempt).rejects.toThrow(CliError);
    await expect(attempt).rejects.toThrow(
      /^The folder assets of the repository at commit [0-9a-f]{12} has no pages to index, so nothing was created\. Check --git, --branch and --subdir, or add --allow-empty/,
    );
    expect(
      await db.storage.db.selectFrom('sites').select('id').where('domain', '=', 'no-pages').execute(),
    ).toEqual([]);
    expect(fs.existsSync(dataDir) ? fs.readdirSync(dataDir, { recursive: true }) : []).toEqual(before);
  });

  it('refuses --docs with --git, git options without --git, and remote helpers', async () => {
    await expect(
      runCliInProcess(db.url, 'init', '--site', 'both', '--git', repo, '--docs', temp),
    ).rejects.toThrow(/--docs and --git cannot be used together/);
    await expect(runCliInProcess(db.url, 'init', '--site', 'nogit', '--branch', 'main')).rejects.toThrow(
      /--branch needs --git/,
    );
    await expect(runCliInProcess(db.url, 'init', '--site', 'helper', '--git', 'ext::sh')).rejects.toThrow(
      /^--git: git url uses a remote helper/,
    );
    await expect(
      runCliInProcess(db.url, 'init', '--site', 'opt', '--git=--upload-pack=touch /tmp/x'),
    ).rejects.toThrow(/^--git: git url must not start with "-"/);
  });
});
