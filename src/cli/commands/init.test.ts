import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INTERRUPTED_INGESTION_ERROR } from '../../ingest/recover-interrupted-ingestions.ts';
import { startInstanceLifecycle } from '../../recovery/instance-lifecycle.ts';
import { createOrganization } from '../../tenancy/organizations.ts';
import { createSite } from '../../tenancy/sites.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../../testing/databases.ts';
import { repoRoot } from '../../testing/paths.ts';
import { runCliInProcess } from '../../testing/run-cli-in-process.ts';
import { CliError } from '../context.ts';

describe.each(dialects)('docent init --base-url on %s', (dialect) => {
  let db: TestDatabase;
  let docs: string;

  beforeAll(async () => {
    db = await createTestDatabase(dialect);
    docs = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-init-'));
    fs.writeFileSync(path.join(docs, 'index.md'), '# Welcome\n\nTiny docs.\n');
  });
  afterAll(async () => {
    await db?.drop();
    fs.rmSync(docs, { recursive: true, force: true });
  });

  it('refuses a base URL that is not http: or https:, creating nothing', async () => {
    for (const baseUrl of ['javascript:alert(1)', 'data:text/html,x', 'ftp://docs.example.com']) {
      const attempt = runCliInProcess(db.url, 'init', '--site', 'bad', '--docs', docs, '--base-url', baseUrl);
      await expect(attempt).rejects.toThrow(CliError);
      await expect(attempt).rejects.toThrow(/^--base-url: must be an http: or https: URL/);
    }
    expect(await db.storage.db.selectFrom('organizations').select('id').execute()).toEqual([]);
    expect(await db.storage.db.selectFrom('sites').select('id').execute()).toEqual([]);
  });

  it('refuses it in `sites create` too, with a message and no stack', async () => {
    const org = await createOrganization(db.storage, { name: 'base-url' });
    const attempt = runCliInProcess(
      db.url,
      'sites',
      'create',
      'bad',
      '--org',
      org.id,
      '--base-url',
      'javascript:alert(1)',
    );
    await expect(attempt).rejects.toThrow(CliError);
    await expect(attempt).rejects.toThrow(/baseUrl/);
    expect(await db.storage.db.selectFrom('sites').select('id').execute()).toEqual([]);
    await db.storage.db.deleteFrom('organizations').where('id', '=', org.id).execute();
  });

  it('stores an https: base URL', async () => {
    const out = await runCliInProcess(
      db.url,
      '--json',
      'init',
      '--site',
      'good',
      '--docs',
      docs,
      '--base-url',
      'https://docs.example.com/',
    );
    expect(JSON.parse(out)).toMatchObject({ site: 'good' });
    const site = await db.storage.db
      .selectFrom('sites')
      .selectAll()
      .where('domain', '=', 'good')
      .executeTakeFirst();
    expect(site?.base_url).toBe('https://docs.example.com');
  });

  it("names the site after the docs' own name unless --name gives one", async () => {
    const named = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-init-named-'));
    try {
      fs.writeFileSync(path.join(named, 'mkdocs.yml'), 'site_name: Lumen Docs\n');
      fs.mkdirSync(path.join(named, 'docs'));
      fs.writeFileSync(path.join(named, 'docs', 'index.md'), '# Lumen\n\nHello.\n');
      await runCliInProcess(db.url, 'init', '--site', 'lumen', '--docs', named);
      await runCliInProcess(db.url, 'init', '--site', 'lumen-own', '--docs', named, '--name', 'Our Lumen');
      const names = await db.storage.db
        .selectFrom('sites')
        .select(['domain', 'name'])
        .where('domain', 'in', ['lumen', 'lumen-own'])
        .orderBy('domain')
        .execute();
      expect(names).toEqual([
        { domain: 'lumen', name: 'Lumen Docs' },
        { domain: 'lumen-own', name: 'Our Lumen' },
      ]);
    } finally {
      fs.rmSync(named, { recursive: true, force: true });
    }
  });

  it('says how to go on when the site is there without keys (an init killed before printing them)', async () => {
    const org = await createOrganization(db.storage, { name: 'killed init' });
    await createSite(db.storage, { organizationId: org.id, domain: 'keyless', docsDir: docs });
    const attempt = runCliInProcess(db.url, 'init', '--site', 'keyless', '--docs', docs);
    await expect(attempt).rejects.toThrow(
      'Site "keyless" already exists but has no keys (an init stopped before it printed them?): make one with ' +
        '"keys create --site keyless", or delete the site with "sites delete keyless --yes" and run init again',
    );
    // With a key, it is a site in use: only the way to update it.
    await runCliInProcess(db.url, 'keys', 'create', '--site', 'keyless');
    await expect(runCliInProcess(db.url, 'init', '--site', 'keyless', '--docs', docs)).rejects.toThrow(
      'Site "keyless" already exists; use "ingest <dir> --site keyless" to update it',
    );
  });

  it('refuses docs with no pages, creating nothing, unless --allow-empty', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-init-empty-'));
    const noPages = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-init-nopages-'));
    try {
      fs.writeFileSync(path.join(noPages, 'notes.txt'), 'Not a page.\n');
      for (const dir of [empty, noPages]) {
        const attempt = runCliInProcess(db.url, 'init', '--site', 'hollow', '--docs', dir);
        await expect(attempt).rejects.toThrow(CliError);
        await expect(attempt).rejects.toThrow(
          `${dir} has no pages to index, so nothing was created. Check the folder, or add --allow-empty to create the site without pages`,
        );
      }
      const named = (table: 'organizations' | 'sites', column: 'name' | 'domain') =>
        db.storage.db.selectFrom(table).select('id').where(column, '=', 'hollow').execute();
      expect(await named('organizations', 'name')).toEqual([]);
      expect(await named('sites', 'domain')).toEqual([]);
      const out = await runCliInProcess(db.url, 'init', '--site', 'hollow', '--docs', empty, '--allow-empty');
      expect(out).toMatch(/^Site "hollow" created: 0 pages/);
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
      fs.rmSync(noPages, { recursive: true, force: true });
    }
  });

  it("prints its first ingestion's warnings, with file and line, and --json carries them and the counts", async () => {
    const warned = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-init-warn-'));
    try {
      fs.writeFileSync(path.join(warned, 'index.mdx'), '# Welcome\n\nFine.\n\nBroken <Tag attr={ here\n');
      const out = await runCliInProcess(db.url, 'init', '--site', 'warned', '--docs', warned);
      expect(out).toMatch(/created: 1 page, 1 warning\./);
      expect(out).toMatch(/\n {2}warning: index\.mdx:5: .*invalid MDX/);
      const json = JSON.parse(
        await runCliInProcess(db.url, '--json', 'init', '--site', 'warned-json', '--docs', warned),
      ) as { jobId: string; counts: { pages: number }; warnings: { file: string; line?: number }[] };
      expect(json.jobId).toMatch(/^ing_/);
      expect(json.counts.pages).toBe(1);
      expect(json.warnings).toEqual([expect.objectContaining({ file: 'index.mdx', line: 5 })]);
    } finally {
      fs.rmSync(warned, { recursive: true, force: true });
    }
  });
});

describe('docent init --base-url as a process', () => {
  it('exits 1 with one clear line', { timeout: 120_000 }, async () => {
    const db = await createTestDatabase('sqlite');
    try {
      const cli = path.join(repoRoot, 'src/cli/main.ts');
      const args = ['--import', 'tsx', cli, '--database-url', db.url, 'init', '--site', 'bad'];
      const result = await promisify(execFile)(
        process.execPath,
        [...args, '--base-url', 'javascript:alert(1)'],
        {
          cwd: repoRoot,
          timeout: 100_000,
        },
      ).then(
        () => ({ code: 0, stderr: '' }),
        (error: { code?: number; stderr?: string }) => ({
          code: error.code ?? 1,
          stderr: error.stderr ?? '',
        }),
      );
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^docent: --base-url: must be an http: or https: URL/);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    } finally {
      await db.drop();
    }
  });
});

describe('docent init killed during its first ingestion', () => {
  it(
    'leaves a job that a live process marks failed, its staged pages cleared',
    { timeout: 120_000 },
    async () => {
      const db = await createTestDatabase('sqlite');
      const docs = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-init-killed-'));
      // Enough pages that the ingestion is still staging them when the process is killed.
      const body = Array.from({ length: 400 }, (_, i) => `word${i % 97} rotate keys`).join(' ');
      for (let i = 0; i < 3000; i++)
        fs.writeFileSync(path.join(docs, `page-${i}.md`), `# Page ${i}\n\n${body}\n`);
      const child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          path.join(repoRoot, 'src/cli/main.ts'),
          '--database-url',
          db.url,
          'init',
          '--site',
          'killed',
          '--docs',
          docs,
        ],
        { cwd: repoRoot, stdio: 'ignore' },
      );
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      try {
        const deadline = Date.now() + 100_000;
        for (;;) {
          const staged = await db.storage.db
            .selectFrom('ingestion_staged_pages')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirst();
          if (Number(staged?.n ?? 0) > 0) break;
          if (Date.now() > deadline || child.exitCode !== null)
            throw new Error('init staged no pages in time');
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        child.kill('SIGKILL');
        await exited;
        // The next process on the database (a server's start, a `docent ingest`) settles what it left.
        const lifecycle = await startInstanceLifecycle(db.storage, pino({ level: 'silent' }));
        await lifecycle.stop();
        const jobs = await db.storage.db.selectFrom('ingestion_jobs').select(['status', 'error']).execute();
        expect(jobs).toEqual([{ status: 'failure', error: INTERRUPTED_INGESTION_ERROR }]);
        expect(await db.storage.db.selectFrom('ingestion_staged_pages').select('job_id').execute()).toEqual(
          [],
        );
      } finally {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        await exited;
        await db.drop();
        fs.rmSync(docs, { recursive: true, force: true });
      }
    },
  );
});
