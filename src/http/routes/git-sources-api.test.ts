import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { createApp } from '../../app.ts';
import { loadConfig } from '../../config.ts';
import { createTenant, type Tenant } from '../../limits/limits-fixtures.ts';
import { cloneFolder } from '../../sources/git-checkout.ts';
import { MAX_HOOK_BODY_BYTES } from '../../sources/git-webhook.ts';
import { signInToConsole } from '../../tenancy/console-sessions.ts';
import { IngestionRunner, MAX_RUNNING_INGESTIONS_PER_ORGANIZATION } from '../../tenancy/ingestion-runner.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../../testing/databases.ts';
import { commitFiles, createRepo, sampleDocs } from '../../testing/git-repos.ts';
import { createTestApp } from '../../testing/test-app.ts';

type Json = Record<string, unknown> & { error?: { code: string; message: string; requestId?: string } };

function sign(secret: string, body: string): string {
  return `sha256=${crypto.createHmac('sha256', secret).update(body).digest('hex')}`;
}

function pushPayload(branch: string): string {
  return JSON.stringify({ ref: `refs/heads/${branch}`, after: 'a'.repeat(40), commits: [] });
}

describe.each(dialects)('git sources over the admin API on %s', (dialect) => {
  let database: TestDatabase;
  let app: ReturnType<typeof createApp>;
  let tenant: Tenant;
  let temp: string;
  let docsRoot: string;
  let repo: string;
  let ingestions: IngestionRunner;

  async function call(
    method: string,
    url: string,
    options: { key?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
  ): Promise<{ status: number; json: Json }> {
    const body = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    const response = await app.request(url, {
      method,
      headers: {
        ...(options.key ? { Authorization: `Bearer ${options.key}` } : {}),
        ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
        ...options.headers,
      },
      ...(body !== undefined ? { body } : {}),
    });
    const text = await response.text();
    return { status: response.status, json: text ? (JSON.parse(text) as Json) : {} };
  }

  async function finished(statusId: string): Promise<Json> {
    await ingestions.idle();
    return (await call('GET', `/v1/admin/ingestions/${statusId}`, { key: tenant.adminKey })).json;
  }

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    temp = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-git-api-'));
    docsRoot = path.join(temp, 'root');
    repo = path.join(docsRoot, 'repo');
    createRepo(repo, sampleDocs());
    ingestions = new IngestionRunner(pino({ level: 'silent' }), null, {
      dataDir: path.join(temp, 'data'),
      env: loadConfig().git.env,
      serverCredentialsForApiSources: false,
      localRoot: docsRoot,
    });
    const { storage } = database;
    app = createTestApp(storage, { docsRoot, ingestions });
    tenant = await createTenant(storage, { domain: 'git-owner' });
  });
  afterAll(async () => {
    await ingestions?.idle();
    await database?.drop();
    fs.rmSync(temp, { recursive: true, force: true });
  });

  it('refuses remote helpers, options and repositories on the server outside DOCENT_DOCS_ROOT', async () => {
    const key = tenant.adminKey;
    for (const url of ['ext::sh -c touch% /tmp/pwned', 'ext::sh', '--upload-pack=touch /tmp/x', 'fd::3']) {
      const refused = await call('POST', '/v1/admin/sites', {
        key,
        body: { domain: 'bad-git', git: { url } },
      });
      expect(refused.status, url).toBe(400);
      expect(refused.json.error?.code).toBe('invalid_request');
    }
    for (const url of ['file:///etc', '/etc', temp, '../', `file://${path.join(temp, 'data')}`]) {
      const refused = await call('POST', '/v1/admin/sites', {
        key,
        body: { domain: 'bad-git', git: { url } },
      });
      expect(refused.status, url).toBe(403);
      expect(refused.json.error?.message).toMatch(/DOCENT_DOCS_ROOT/);
    }
    const both = await call('POST', '/v1/admin/sites', {
      key,
      body: { domain: 'bad-git', docsDir: 'repo', git: { url: 'https://example.com/a/b.git' } },
    });
    expect(both.status).toBe(400);
    const subdir = await call('POST', '/v1/admin/sites', {
      key,
      body: { domain: 'bad-git', git: { url: 'repo', subdir: '../../etc' } },
    });
    expect(subdir.status).toBe(400);
    expect((await call('GET', '/v1/admin/sites/bad-git', { key })).status).toBe(404);
  });

  it('refuses, then and before every fetch, a repository under the root whose git folder leads out of it', async () => {
    const key = tenant.adminKey;
    // A repository the server can read but no tenant may: its content must never be cloned for one.
    const privateRepo = path.join(temp, 'private');
    createRepo(privateRepo, { 'index.md': '# Private\n\nPRIVATE-CANARY of another repository.\n' });
    const gitfile = path.join(docsRoot, 'gitfile');
    fs.mkdirSync(gitfile);
    fs.writeFileSync(path.join(gitfile, '.git'), `gitdir: ${path.join(privateRepo, '.git')}\n`);
    const gitlink = path.join(docsRoot, 'gitlink');
    fs.mkdirSync(gitlink);
    fs.symlinkSync(path.join(privateRepo, '.git'), path.join(gitlink, '.git'));
    const borrower = path.join(docsRoot, 'borrower');
    createRepo(borrower, sampleDocs());
    fs.writeFileSync(
      path.join(borrower, '.git/objects/info/alternates'),
      `${path.join(privateRepo, '.git/objects')}\n`,
    );
    const linked = path.join(docsRoot, 'linked');
    createRepo(linked, sampleDocs());
    fs.symlinkSync(
      path.join(privateRepo, '.git/refs/heads/main'),
      path.join(linked, '.git/refs/heads/private'),
    );
    // An empty folder with the private repository's git folder linked beside it as <name>.git: git,
    // finding no repository in the folder, takes that one.
    fs.mkdirSync(path.join(docsRoot, 'empty'));
    fs.symlinkSync(path.join(privateRepo, '.git'), path.join(docsRoot, 'empty.git'));
    const hollow = path.join(docsRoot, 'hollow');
    fs.mkdirSync(path.join(hollow, '.git'), { recursive: true });
    fs.symlinkSync(path.join(privateRepo, '.git'), path.join(docsRoot, 'hollow.git'));
    // A .git git does not take (HEAD is no ref), in a folder that is itself a repository borrowing the
    // private one's refs and objects (commondir): git skips .git and reads the private repository.
    const borrowedHead = path.join(docsRoot, 'borrowed-head');
    fs.mkdirSync(path.join(borrowedHead, '.git/objects'), { recursive: true });
    fs.mkdirSync(path.join(borrowedHead, '.git/refs'));
    fs.writeFileSync(path.join(borrowedHead, '.git/HEAD'), 'garbage\n');
    fs.writeFileSync(path.join(borrowedHead, 'HEAD'), 'ref: refs/heads/main\n');
    fs.writeFileSync(path.join(borrowedHead, 'commondir'), `${path.join(privateRepo, '.git')}\n`);
    createRepo(path.join(docsRoot, 'beside'), sampleDocs());
    fs.symlinkSync(path.join(privateRepo, '.git'), path.join(docsRoot, 'beside.git'));
    for (const [url, why] of [
      ['borrowed-head', /is not a git repository/],
      ['beside', /has a beside\.git beside it/],
      ['empty', /is not a git repository/],
      ['hollow', /is not a git repository/],
      ['gitfile', /has a \.git file/],
      ['gitlink', /has a \.git link/],
      ['borrower', /borrows objects or refs from another repository \(objects\/info\/alternates\)/],
      ['linked', /has a link in its git folder, which may lead outside/],
    ] as const) {
      const refused = await call('POST', '/v1/admin/sites', {
        key,
        body: { domain: 'sneaky', git: { url } },
      });
      expect(refused.status, url).toBe(403);
      expect(refused.json.error?.message, url).toMatch(why);
    }

    // Clean when registered, then turned into a pointer at the private repository.
    const turned = path.join(docsRoot, 'turned');
    createRepo(turned, sampleDocs());
    const created = await call('POST', '/v1/admin/sites', {
      key,
      body: { domain: 'sneaky', git: { url: 'turned' } },
    });
    expect(created.status).toBe(201);
    const first = await call('POST', '/v1/admin/sites/sneaky/ingestions', { key });
    expect((await finished(first.json.statusId as string)).status).toBe('success');
    fs.rmSync(path.join(turned, '.git'), { recursive: true, force: true });
    fs.writeFileSync(path.join(turned, '.git'), `gitdir: ${path.join(privateRepo, '.git')}\n`);
    fs.rmSync(cloneFolder(path.join(temp, 'data'), created.json.id as string), {
      recursive: true,
      force: true,
    });
    const second = await call('POST', '/v1/admin/sites/sneaky/ingestions', { key });
    const failed = await finished(second.json.statusId as string);
    expect(failed.status).toBe('failure');
    expect(JSON.stringify(failed)).toMatch(/has a \.git file/);
    const leaked = await database.storage.db
      .selectFrom('chunks')
      .select('text')
      .where('text', 'like', '%PRIVATE-CANARY%')
      .execute();
    expect(leaked).toEqual([]);
    expect((await call('DELETE', '/v1/admin/sites/sneaky', { key })).status).toBe(204);
  });

  it('creates a git site, ingests it, shows the commit, and re-ingests after a push', async () => {
    const key = tenant.adminKey;
    const created = await call('POST', '/v1/admin/sites', {
      key,
      body: {
        domain: 'git-docs',
        git: { url: 'https://ci-token:s3cret@git.example.com/acme/docs.git', branch: 'main', subdir: 'docs' },
      },
    });
    expect(created.status).toBe(201);
    // The token never comes back; the secret does, this once.
    expect(created.json.git).toMatchObject({
      url: 'https://***@git.example.com/acme/docs.git',
      subdir: 'docs',
    });
    const secret = created.json.webhookSecret as string;
    expect(secret).toMatch(/^dhk_[0-9A-Za-z]{40}$/);
    // Pointed at the repository under the root instead: same secret, no new one shown.
    const patched = await call('PATCH', '/v1/admin/sites/git-docs', {
      key,
      body: { git: { url: 'repo', branch: 'main', subdir: 'docs' } },
    });
    expect(patched.status).toBe(200);
    expect(patched.json.webhookSecret).toBeUndefined();
    expect(patched.json.git).toMatchObject({ url: fs.realpathSync(repo), branch: 'main', commit: null });
    // Set by an organization's admin: git will run without the server user's credentials for it.
    const stored = await database.storage.db
      .selectFrom('site_git_sources')
      .innerJoin('sites', 'sites.id', 'site_git_sources.site_id')
      .select('site_git_sources.set_by')
      .where('sites.domain', '=', 'git-docs')
      .executeTakeFirstOrThrow();
    expect(stored.set_by).toBe('api');
    // Listings give each site as GET of the one site does, its git source included (null: a folder).
    const listed = await call('GET', '/v1/admin/sites', { key });
    const sites = listed.json.sites as { domain: string; git: unknown }[];
    const single = await call('GET', '/v1/admin/sites/git-docs', { key });
    expect(sites.find((site) => site.domain === 'git-docs')?.git).toEqual(single.json.git);
    expect(sites.filter((site) => site.domain !== 'git-docs').every((site) => site.git === null)).toBe(true);

    const started = await call('POST', '/v1/admin/sites/git-docs/ingestions', { key });
    expect(started.status).toBe(202);
    const first = await finished(started.json.statusId as string);
    expect(first).toMatchObject({ status: 'success', counts: { pages: 3, added: 3 } });
    expect(first.commit).toMatch(/^[0-9a-f]{40}$/);

    const commit = commitFiles(repo, { 'docs/install.md': '# Install\n\nRun the new installer.\n' });
    const body = pushPayload('main');
    const bad = await call('POST', '/v1/hooks/sites/git-docs/git', {
      raw: body,
      headers: { 'X-Hub-Signature-256': sign('dhk_wrong', body), 'X-GitHub-Event': 'push' },
    });
    expect(bad.status).toBe(401);
    expect(bad.json.error).toMatchObject({ code: 'unauthorized', requestId: expect.any(String) });
    const unsigned = await call('POST', '/v1/hooks/sites/git-docs/git', { raw: body });
    expect(unsigned.status).toBe(401);

    const push = await call('POST', '/v1/hooks/sites/git-docs/git', {
      raw: body,
      headers: { 'X-Hub-Signature-256': sign(secret, body), 'X-GitHub-Event': 'push' },
    });
    expect(push.status).toBe(202);
    expect(push.json).toMatchObject({ status: 'queued', after: false });
    const second = await finished(push.json.statusId as string);
    expect(second).toMatchObject({
      status: 'success',
      commit,
      counts: { pages: 3, added: 0, updated: 1, unchanged: 2 },
    });
    const site = await call('GET', '/v1/admin/sites/git-docs', { key });
    expect((site.json.git as { commit: string }).commit).toBe(commit);

    // Two pushes at once: the second arrives during the first's fetch, so the site is ingested again after it.
    const latest = commitFiles(repo, { 'docs/index.md': '# Welcome\n\nWidgets are very small tools.\n' });
    const headers = { 'X-Hub-Signature-256': sign(secret, body), 'X-GitHub-Event': 'push' };
    const [one, two] = await Promise.all([
      call('POST', '/v1/hooks/sites/git-docs/git', { raw: body, headers }),
      call('POST', '/v1/hooks/sites/git-docs/git', { raw: body, headers }),
    ]);
    expect([one?.json.after, two?.json.after].sort()).toEqual([false, true]);
    await ingestions.idle();
    const jobs = await database.storage.db
      .selectFrom('ingestion_jobs')
      .select(['status', 'commit_sha'])
      .where('site_id', '=', created.json.id as string)
      .orderBy('created_at')
      .execute();
    expect(jobs.map((j) => j.status)).toEqual(['success', 'success', 'success', 'success']);
    expect(jobs.at(-1)?.commit_sha).toBe(latest);

    // Deleting the site deletes its clone: a deleted organization's docs do not stay on disk.
    await ingestions.idle();
    const clone = cloneFolder(path.join(temp, 'data'), created.json.id as string);
    expect(fs.existsSync(clone)).toBe(true);
    expect((await call('DELETE', '/v1/admin/sites/git-docs', { key })).status).toBe(204);
    expect(fs.existsSync(clone)).toBe(false);
  });

  it("shows a git site's repository in the console and re-ingests it from there", async () => {
    const created = await call('POST', '/v1/admin/sites', {
      key: tenant.adminKey,
      body: { domain: 'git-console', git: { url: 'repo', branch: 'main', subdir: 'docs' } },
    });
    expect(created.status).toBe(201);
    const { secret, session } = await signInToConsole(database.storage, tenant.adminKey);
    const cookie = `docent_console=${secret}`;
    const screen = await app.request('http://localhost/console/sites/git-console', {
      headers: { Cookie: cookie },
    });
    const html = await screen.text();
    expect(html).toContain(`Git: ${fs.realpathSync(repo)} (main), folder docs`);
    // Enabled: a git site has no docs folder, and the button was disabled for it.
    expect(html).toMatch(/<button class="primary" type="submit">\s*Re-ingest now/);
    const posted = await app.request('http://localhost/console/sites/git-console/ingestions', {
      method: 'POST',
      headers: {
        Cookie: cookie,
        Origin: 'http://localhost',
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ _csrf: session.csrfToken }).toString(),
    });
    expect(posted.status).toBe(303);
    const job = posted.headers.get('Location')?.match(/\/jobs\/(ing_\w+)$/)?.[1] ?? '';
    expect(await finished(job)).toMatchObject({ status: 'success' });
  });

  it('takes GitLab pushes, ignores other branches, and rotates the secret', async () => {
    const key = tenant.adminKey;
    const branched = path.join(docsRoot, 'branched');
    createRepo(branched, { 'index.md': '# Stable\n\nStable docs.\n' }, 'stable');
    const created = await call('POST', '/v1/admin/sites', {
      key,
      body: { domain: 'git-lab', git: { url: 'branched', branch: 'stable' } },
    });
    const secret = created.json.webhookSecret as string;
    const gitlab = (token: string, branch: string) =>
      call('POST', '/v1/hooks/sites/git-lab/git', {
        raw: pushPayload(branch),
        headers: { 'X-Gitlab-Token': token, 'X-Gitlab-Event': 'Push Hook' },
      });
    expect((await gitlab('dhk_not-the-secret', 'stable')).status).toBe(401);
    const other = await gitlab(secret, 'feature');
    expect(other.status).toBe(202);
    expect(other.json).toEqual({ status: 'ignored', ignored: 'branch', ref: 'refs/heads/feature' });
    const tag = await call('POST', '/v1/hooks/sites/git-lab/git', {
      raw: JSON.stringify({ ref: 'refs/tags/v1' }),
      headers: { 'X-Gitlab-Token': secret },
    });
    expect(tag.json).toMatchObject({ status: 'ignored', ignored: 'branch' });

    const pushed = await gitlab(secret, 'stable');
    expect(pushed.status).toBe(202);
    const job = await finished(pushed.json.statusId as string);
    expect(job).toMatchObject({ status: 'success', counts: { pages: 1 } });

    const rotated = await call('POST', '/v1/admin/sites/git-lab/git/webhook-secret', { key });
    expect(rotated.status).toBe(200);
    expect(rotated.json.webhookSecret).not.toBe(secret);
    expect((await gitlab(secret, 'stable')).status).toBe(401);
    const after = await gitlab(rotated.json.webhookSecret as string, 'stable');
    expect(after.status).toBe(202);
    await ingestions.idle();
  });

  it('refuses a push body over the limit and a site without a git source', async () => {
    const huge = JSON.stringify({ ref: 'refs/heads/main', padding: 'x'.repeat(MAX_HOOK_BODY_BYTES) });
    const tooLarge = await call('POST', '/v1/hooks/sites/git-docs/git', {
      raw: huge,
      headers: { 'X-Gitlab-Token': 'dhk_whatever' },
    });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.json.error?.code).toBe('payload_too_large');
    // The tenant's own site reads no repository.
    const none = await call('POST', '/v1/hooks/sites/git-owner/git', {
      raw: pushPayload('main'),
      headers: { 'X-Gitlab-Token': 'dhk_whatever' },
    });
    expect(none.status).toBe(404);
  });

  it('turns a repository that cannot be cloned into a failed job, not an error response', async () => {
    const key = tenant.adminKey;
    // A folder that is no repository at all is refused when it is named (403); a repository that only
    // looks whole (its objects gone) fails when git clones it.
    fs.mkdirSync(path.join(docsRoot, 'not-a-repo'));
    const refused = await call('POST', '/v1/admin/sites', {
      key,
      body: { domain: 'git-broken', git: { url: 'not-a-repo' } },
    });
    expect(refused.status).toBe(403);
    expect(refused.json.error?.message).toMatch(/is not a git repository/);
    const broken = path.join(docsRoot, 'broken-repo');
    createRepo(broken, sampleDocs());
    fs.rmSync(path.join(broken, '.git/objects'), { recursive: true, force: true });
    fs.mkdirSync(path.join(broken, '.git/objects'));
    const created = await call('POST', '/v1/admin/sites', {
      key,
      body: { domain: 'git-broken', git: { url: 'broken-repo' } },
    });
    expect(created.status).toBe(201);
    const started = await call('POST', '/v1/admin/sites/git-broken/ingestions', { key });
    expect(started.status).toBe(202);
    const job = await finished(started.json.statusId as string);
    expect(job.status).toBe('failure');
    expect(job.error).toMatch(/^git clone failed: /);
  });

  it('refuses a new docs folder with 429 before changing the site, when its organization is at the cap', async () => {
    const key = tenant.adminKey;
    // A git remote that takes connections and never answers: each ingestion of it runs until its socket goes.
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => {
      sockets.add(socket);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}/docs.git`;
    try {
      for (let i = 0; i <= MAX_RUNNING_INGESTIONS_PER_ORGANIZATION; i++) {
        const created = await call('POST', '/v1/admin/sites', {
          key,
          body: { domain: `capped-${i}`, git: { url } },
        });
        expect(created.status).toBe(201);
        if (i < MAX_RUNNING_INGESTIONS_PER_ORGANIZATION)
          expect((await call('POST', `/v1/admin/sites/capped-${i}/ingestions`, { key })).status).toBe(202);
      }
      fs.mkdirSync(path.join(docsRoot, 'plain'), { recursive: true });
      fs.writeFileSync(path.join(docsRoot, 'plain', 'index.md'), '# Plain\n\nText.\n');
      const last = `capped-${MAX_RUNNING_INGESTIONS_PER_ORGANIZATION}`;
      const refused = await call('POST', `/v1/admin/sites/${last}/ingestions`, {
        key,
        body: { docsDir: 'plain' },
      });
      expect(refused.status).toBe(429);
      expect((refused.json.error as { code: string }).code).toBe('rate_limited');
      // Refused before the change: the site still reads its repository.
      const site = await call('GET', `/v1/admin/sites/${last}`, { key });
      expect(site.json.git).toMatchObject({ url });
      expect(site.json.docsDir ?? null).toBeNull();
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
      await ingestions.idle();
    }
  });

  it('documents the git fields and the webhook in /openapi.json', async () => {
    const document = (await (await app.request('/openapi.json')).json()) as {
      paths: Record<
        string,
        Record<string, { requestBody?: { content: Record<string, { schema: unknown }> } }>
      >;
    };
    expect(document.paths['/v1/hooks/sites/{domain}/git']?.post).toBeDefined();
    // A push over its organization's cap of running ingestions waits for a slot (ingestion-runner.ts).
    const hook = document.paths['/v1/hooks/sites/{domain}/git']?.post as { responses?: object } | undefined;
    expect(Object.keys(hook?.responses ?? {})).not.toContain('429');
    expect(JSON.stringify(hook)).toContain('waiting');
    expect(document.paths['/v1/admin/sites/{domain}/git/webhook-secret']?.post).toBeDefined();
    const createBody = JSON.stringify(document.paths['/v1/admin/sites']?.post?.requestBody);
    expect(createBody).toContain('pollMinutes');
    expect(createBody).toContain('subdir');
    const ingestion = JSON.stringify(document.paths['/v1/admin/ingestions/{id}']);
    expect(ingestion).toContain('commit');
  });
});
