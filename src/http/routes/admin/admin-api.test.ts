import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { createApp } from '../../../app.ts';
import { createIngestionJob, failIngestionJob } from '../../../ingest/jobs.ts';
import { askBody, createTenant, type Tenant } from '../../../limits/limits-fixtures.ts';
import { registerInstance } from '../../../storage/server-instances.ts';
import { MAX_KEYS_CREATED_PER_HOUR } from '../../../tenancy/api-keys.ts';
import { IngestionRunner } from '../../../tenancy/ingestion-runner.ts';
import { getOrganizationSite } from '../../../tenancy/sites.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../../../testing/databases.ts';
import { createTestApp } from '../../../testing/test-app.ts';
import { MAX_CONSOLE_FORM_BYTES } from '../console/console-routes.ts';
import { MAX_ADMIN_BODY_BYTES } from './admin-api.ts';

function docsFolder(root: string, name: string): string {
  const dir = path.join(root, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'docs.json'),
    JSON.stringify({ name: 'Tiny', navigation: { groups: [{ group: 'Start', pages: ['index', 'setup'] }] } }),
  );
  fs.writeFileSync(path.join(dir, 'index.mdx'), '---\ntitle: Welcome\n---\n\nTiny docs about widgets.\n');
  fs.writeFileSync(
    path.join(dir, 'setup.mdx'),
    '---\ntitle: Setup\n---\n\nInstall the widget with the installer.\n',
  );
  return dir;
}

type Json = Record<string, unknown> & { error?: { code: string; message: string; details?: unknown[] } };

describe.each(dialects)('admin API on %s', (dialect) => {
  let database: TestDatabase;
  let app: ReturnType<typeof createApp>;
  let a: Tenant;
  let b: Tenant;
  let docsRoot: string;
  const ingestions = new IngestionRunner();

  async function call(
    method: string,
    url: string,
    key: string | undefined,
    body?: unknown,
  ): Promise<{ status: number; json: Json; headers: Headers }> {
    const response = await app.request(url, {
      method,
      headers: {
        ...(key ? { Authorization: `Bearer ${key}` } : {}),
        ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    return {
      status: response.status,
      json: text ? (JSON.parse(text) as Json) : {},
      headers: response.headers,
    };
  }

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    docsRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-root-'));
    docsFolder(docsRoot, 'tiny');
    fs.mkdirSync(path.join(docsRoot, 'empty'));
    const { storage } = database;
    app = createTestApp(storage, { docsRoot, ingestions });
    a = await createTenant(storage, { domain: 'alpha' });
    b = await createTenant(storage, { domain: 'bravo' });
  });
  afterAll(async () => {
    await ingestions.idle();
    await database?.drop();
    fs.rmSync(docsRoot, { recursive: true, force: true });
  });

  it('accepts only admin keys', async () => {
    const none = await call('GET', '/v1/admin/sites', undefined);
    expect(none.status).toBe(401);
    expect(none.json.error?.code).toBe('unauthorized');
    const assistant = await call('GET', '/v1/admin/sites', a.assistantKey);
    expect(assistant.status).toBe(401);
    expect(assistant.json.error?.message).toMatch(/Assistant keys .* not accepted by the admin API/);
    expect((await call('GET', '/v1/admin/sites', 'svc_notarealkeyatall')).status).toBe(401);
    // A header that holds more than one key is named as malformed, not as missing.
    const malformed = await call('GET', '/v1/admin/sites', `${a.adminKey} extra`);
    expect(malformed.json.error?.message).toMatch(/^Malformed Authorization header: send/);
    const malformedAssistant = await app.request('/v1/assistant/alpha/message', {
      method: 'POST',
      headers: { Authorization: `Bearer ${a.assistantKey} extra`, 'Content-Type': 'application/json' },
      body: JSON.stringify(askBody()),
    });
    expect(((await malformedAssistant.json()) as Json).error?.message).toMatch(
      /^Malformed Authorization header/,
    );
    // And the other way round: an admin key is never accepted by the assistant route.
    const asAssistant = await app.request('/v1/assistant/alpha/message', {
      method: 'POST',
      headers: { Authorization: `Bearer ${a.adminKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(askBody()),
    });
    expect(asAssistant.status).toBe(401);
  });

  it('creates, lists, reads, changes and deletes sites', async () => {
    const created = await call('POST', '/v1/admin/sites', a.adminKey, {
      domain: 'alpha-docs',
      name: 'Alpha docs',
      baseUrl: 'https://docs.alpha.example/',
      allowedOrigins: ['https://alpha.example', 'https://alpha.example'],
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      domain: 'alpha-docs',
      name: 'Alpha docs',
      baseUrl: 'https://docs.alpha.example',
      allowedOrigins: ['https://alpha.example'],
    });
    expect((await call('POST', '/v1/admin/sites', a.adminKey, { domain: 'alpha-docs' })).status).toBe(409);
    // Domains are unique across organizations.
    expect((await call('POST', '/v1/admin/sites', b.adminKey, { domain: 'alpha-docs' })).status).toBe(409);
    // The server's demo page serves the site named `demo` at `/` and publishes an assistant key of it:
    // no organization may take the name (a server without its demo site gave it to the first asking).
    const demo = await call('POST', '/v1/admin/sites', b.adminKey, { domain: 'demo' });
    expect(demo.status).toBe(409);
    expect(demo.json.error?.message).toMatch(/reserved for this server's demo page/);
    const invalid = await call('POST', '/v1/admin/sites', a.adminKey, { domain: 'Not A Domain', extra: 1 });
    expect(invalid.status).toBe(400);
    expect(invalid.json.error?.details).toEqual(
      expect.arrayContaining([expect.objectContaining({ path: 'domain' })]),
    );

    const list = await call('GET', '/v1/admin/sites', a.adminKey);
    expect((list.json.sites as { domain: string }[]).map((s) => s.domain)).toEqual(['alpha', 'alpha-docs']);
    expect((await call('GET', '/v1/admin/sites/alpha-docs', a.adminKey)).json.name).toBe('Alpha docs');

    const patched = await call('PATCH', '/v1/admin/sites/alpha-docs', a.adminKey, {
      allowedOrigins: ['https://docs.alpha.example', 'http://localhost:3000'],
    });
    expect(patched.status).toBe(200);
    expect(patched.json.allowedOrigins).toEqual(['https://docs.alpha.example', 'http://localhost:3000']);
    const badOrigin = await call('PATCH', '/v1/admin/sites/alpha-docs', a.adminKey, {
      allowedOrigins: ['https://docs.alpha.example/path'],
    });
    expect(badOrigin.status).toBe(400);
    expect(badOrigin.json.error?.details).toEqual([expect.objectContaining({ path: 'allowedOrigins.0' })]);
    // A NUL in a name was a 500 on PostgreSQL, which cannot store it in text.
    const nul = await call('PATCH', '/v1/admin/sites/alpha-docs', a.adminKey, { name: 'Alpha\u0000' });
    expect(nul.status).toBe(400);
    expect(nul.json.error?.details).toEqual([expect.objectContaining({ path: 'name' })]);

    expect((await call('DELETE', '/v1/admin/sites/alpha-docs', a.adminKey)).status).toBe(204);
    expect((await call('GET', '/v1/admin/sites/alpha-docs', a.adminKey)).status).toBe(404);
    expect((await call('DELETE', '/v1/admin/sites/alpha-docs', a.adminKey)).status).toBe(404);
  });

  it('creates keys (shown once), lists them by prefix and last four, and revokes them', async () => {
    const created = await call('POST', '/v1/admin/keys', a.adminKey, {
      kind: 'assistant',
      site: 'alpha',
      name: 'web',
    });
    expect(created.status).toBe(201);
    const key = created.json.key as string;
    expect(key).toMatch(/^svc_dsc_[0-9A-Za-z]{32}$/);
    expect(created.json.display).toBe(`svc_dsc_…${key.slice(-4)}`);
    // The new secret is in this response: no cache may keep it.
    expect(created.headers.get('Cache-Control')).toBe('no-store');
    // JSON sent as another type is refused for what it is, not read as an empty body ("kind: Required").
    const body = JSON.stringify({ kind: 'assistant', site: 'alpha' });
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', undefined]) {
      const refused = await app.request('/v1/admin/keys', {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${a.adminKey}`,
          'Content-Length': String(Buffer.byteLength(body)),
          ...(type === undefined ? {} : { 'Content-Type': type }),
        },
        // Bytes: a string body would be given text/plain by the Request itself.
        body: new TextEncoder().encode(body),
      });
      expect(refused.status, type).toBe(415);
      const error = ((await refused.json()) as Json).error;
      expect(error?.code).toBe('unsupported_media_type');
      expect(error?.message).toBe(
        `Send the request body as JSON, with Content-Type: application/json (got ${type ?? 'no Content-Type'})`,
      );
    }

    const list = await call('GET', '/v1/admin/keys', a.adminKey);
    expect(JSON.stringify(list.json)).not.toContain(key);
    expect(JSON.stringify(list.json)).not.toContain(key.slice(8, 28));
    const listed = (list.json.keys as { id: string; site: string | null; kind: string }[]).find(
      (k) => k.id === created.json.id,
    );
    expect(listed).toMatchObject({ site: 'alpha', kind: 'assistant' });

    const works = await app.request('/v1/assistant/alpha/message', {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(askBody()),
    });
    expect(works.status).toBe(200);
    await works.text();
    const afterUse = await call('GET', '/v1/admin/keys?kind=assistant', a.adminKey);
    const used = (afterUse.json.keys as { id: string; lastUsedAt: string | null }[]).find(
      (k) => k.id === created.json.id,
    );
    expect(used?.lastUsedAt).not.toBeNull();

    const revoked = await call('DELETE', `/v1/admin/keys/${created.json.id}`, a.adminKey);
    expect(revoked.status).toBe(200);
    expect(revoked.json.revokedAt).not.toBeNull();
    const refused = await app.request('/v1/assistant/alpha/message', {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(askBody()),
    });
    expect(refused.status).toBe(401);
    const active = await call('GET', '/v1/admin/keys?revoked=exclude', a.adminKey);
    expect((active.json.keys as { id: string }[]).map((k) => k.id)).not.toContain(created.json.id);

    const admin = await call('POST', '/v1/admin/keys', a.adminKey, { kind: 'admin', name: '  ci ' });
    expect(admin.json.name).toBe('ci');
    expect(admin.json.key).toMatch(/^svc_(?!dsc_)[0-9A-Za-z]{32}$/);
    expect((await call('GET', '/v1/admin/sites', admin.json.key as string)).status).toBe(200);

    const cases: [unknown, string][] = [
      [{ kind: 'assistant' }, 'site'],
      [{ kind: 'admin', site: 'alpha' }, 'site'],
      [{ kind: 'assistant', site: 'alpha', expiresAt: '2001-01-01T00:00:00Z' }, 'expiresAt'],
      [{ kind: 'root' }, 'kind'],
      [{ kind: 'admin', name: '   ' }, 'name'],
      [{ kind: 'admin', name: 'ci\n2026-01-01  revoked' }, 'name'],
      [{ kind: 'admin', name: 'x'.repeat(201) }, 'name'],
    ];
    for (const [body, field] of cases) {
      const response = await call('POST', '/v1/admin/keys', a.adminKey, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.json.error?.details, JSON.stringify(body)).toEqual(
        expect.arrayContaining([expect.objectContaining({ path: field })]),
      );
    }
  });

  it(`refuses the key beyond ${MAX_KEYS_CREATED_PER_HOUR} created per organization per hour`, async () => {
    const tenant = await createTenant(database.storage, { domain: 'keycap' });
    const statuses: number[] = [];
    // createTenant made two keys already.
    for (let i = 0; i < MAX_KEYS_CREATED_PER_HOUR - 1; i++) {
      statuses.push(
        (await call('POST', '/v1/admin/keys', tenant.adminKey, { kind: 'assistant', site: 'keycap' })).status,
      );
    }
    expect(statuses.filter((s) => s === 201)).toHaveLength(MAX_KEYS_CREATED_PER_HOUR - 2);
    expect(statuses.at(-1)).toBe(429);
    const last = await call('POST', '/v1/admin/keys', tenant.adminKey, { kind: 'admin' });
    expect(last.status).toBe(429);
    expect(Number(last.headers.get('Retry-After'))).toBeGreaterThan(3000);
  });

  it('ingests in the background from a folder under DOCENT_DOCS_ROOT and reports its status', async () => {
    const none = await call('POST', '/v1/admin/sites/alpha/ingestions', a.adminKey, {});
    expect(none.status).toBe(400);
    // It says what to send, and that the folder must be under the operator's root.
    expect(none.json.error?.message).toMatch(
      /send docsDir \(a folder under this server's DOCENT_DOCS_ROOT\)/,
    );
    for (const docsDir of ['../', '/etc', 'missing']) {
      const outside = await call('POST', '/v1/admin/sites/alpha/ingestions', a.adminKey, { docsDir });
      expect(outside.status, docsDir).toBe(403);
    }
    const started = await call('POST', '/v1/admin/sites/alpha/ingestions', a.adminKey, { docsDir: 'tiny' });
    expect(started.status).toBe(202);
    expect(started.json).toMatchObject({ status: 'queued', statusId: expect.stringMatching(/^ing_/) });
    const statusUrl = started.json.statusUrl as string;
    let status = await call('GET', statusUrl, a.adminKey);
    // Polled as a client would, until the job ends: 5 s were too few on a loaded machine (the parse worker
    // starting beside a full test run), and the test's own timeout bounds the wait.
    while (['queued', 'in_progress'].includes(status.json.status as string)) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      status = await call('GET', statusUrl, a.adminKey);
    }
    expect(status.json).toMatchObject({ site: 'alpha', status: 'success', counts: { pages: 2, added: 2 } });
    expect(status.json.warnings).toEqual([]);
    // The folder is remembered: the next trigger needs no body.
    const again = await app.request('/v1/admin/sites/alpha/ingestions', {
      method: 'POST',
      headers: { Authorization: `Bearer ${a.adminKey}` },
    });
    expect(again.status).toBe(202);
    await ingestions.idle();
    // Nor does one whose client sends the JSON content type with an empty body (curl -H … and no -d).
    const empty = await app.request('/v1/admin/sites/alpha/ingestions', {
      method: 'POST',
      headers: { Authorization: `Bearer ${a.adminKey}`, 'Content-Type': 'application/json' },
    });
    expect(empty.status).toBe(202);
    await ingestions.idle();
    const malformed = await app.request('/v1/admin/sites/alpha/ingestions', {
      method: 'POST',
      headers: { Authorization: `Bearer ${a.adminKey}`, 'Content-Type': 'application/json' },
      body: '{"docsDir":',
    });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
    const failing = await call('POST', '/v1/admin/sites/alpha/ingestions', a.adminKey, { docsDir: 'empty' });
    expect(failing.status).toBe(202);
    await ingestions.idle();
    const failed = await call('GET', failing.json.statusUrl as string, a.adminKey);
    expect(['failure', 'success']).toContain(failed.json.status);
    // The site's ingestions, newest first: the failed one's status is there without its id.
    const listed = await call('GET', '/v1/admin/sites/alpha/ingestions', a.adminKey);
    expect(listed.status).toBe(200);
    const jobs = listed.json.ingestions as { id: string; status: string; site: string }[];
    expect(jobs[0]?.id).toBe(failing.json.statusId);
    expect(jobs[0]?.status).toBe(failed.json.status);
    expect(jobs.map((j) => j.id)).toContain(started.json.statusId);
    expect(jobs.every((j) => j.site === 'alpha')).toBe(true);
    expect((await call('GET', '/v1/admin/sites/alpha/ingestions', b.adminKey)).status).toBe(404);
    // Another organization cannot see or start the ingestion.
    expect((await call('GET', statusUrl, b.adminKey)).status).toBe(404);
    expect(
      (await call('POST', '/v1/admin/sites/alpha/ingestions', b.adminKey, { docsDir: 'tiny' })).status,
    ).toBe(404);
  });

  it('resolves a stored folder again before each ingestion: swapped for a link out of the root, it is refused', async () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-outside-'));
    fs.writeFileSync(path.join(outside, 'secret.md'), '# Secret\n\nSWAPPED-CANARY lives outside the root.\n');
    const folder = docsFolder(docsRoot, 'swapped');
    const created = await call('POST', '/v1/admin/sites', a.adminKey, {
      domain: 'swapper',
      docsDir: 'swapped',
    });
    expect(created.status).toBe(201);
    expect((await call('POST', '/v1/admin/sites/swapper/ingestions', a.adminKey)).status).toBe(202);
    await ingestions.idle();
    fs.renameSync(folder, `${folder}.was`);
    fs.symlinkSync(outside, folder);
    try {
      const again = await call('POST', '/v1/admin/sites/swapper/ingestions', a.adminKey);
      expect(again.status).toBe(403);
      expect(again.json.error?.message).toMatch(/outside DOCENT_DOCS_ROOT/);
      await ingestions.idle();
      const leaked = await database.storage.db
        .selectFrom('chunks')
        .select('text')
        .where('text', 'like', '%SWAPPED-CANARY%')
        .execute();
      expect(leaked).toEqual([]);
      const ingested = await database.storage.db
        .selectFrom('chunks')
        .innerJoin('sites', 'sites.id', 'chunks.site_id')
        .select('chunks.text')
        .where('sites.domain', '=', 'swapper')
        .execute();
      expect(ingested.length).toBeGreaterThan(0);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  it('confines each organization to its own folder when DOCENT_DOCS_ROOT names {organization}', async () => {
    const tree = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-tenants-'));
    docsFolder(path.join(tree, a.organization.id), 'docs');
    docsFolder(path.join(tree, b.organization.id), 'docs');
    const perTenant = createTestApp(database.storage, {
      docsRoot: path.join(tree, '{organization}'),
      ingestions,
    });
    const post = async (key: string, body: unknown) => {
      const response = await perTenant.request('/v1/admin/sites', {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: response.status, json: (await response.json()) as Json };
    };
    try {
      expect((await post(a.adminKey, { domain: 'alpha-own', docsDir: 'docs' })).status).toBe(201);
      for (const docsDir of [
        `../${a.organization.id}/docs`,
        path.join(tree, a.organization.id, 'docs'),
        '..',
      ]) {
        const refused = await post(b.adminKey, { domain: 'bravo-steals', docsDir });
        expect(refused.status, docsDir).toBe(403);
        expect(refused.json.error?.message, docsDir).toMatch(/outside DOCENT_DOCS_ROOT/);
      }
      expect((await post(b.adminKey, { domain: 'bravo-own', docsDir: 'docs' })).status).toBe(201);
      // A folder accepted before the root named {organization}, in another organization's folder: refused
      // at its next ingestion.
      await database.storage.db
        .updateTable('sites')
        .set({ docs_dir: path.join(tree, a.organization.id, 'docs') })
        .where('domain', '=', 'bravo-own')
        .execute();
      const again = await perTenant.request('/v1/admin/sites/bravo-own/ingestions', {
        method: 'POST',
        headers: { Authorization: `Bearer ${b.adminKey}` },
      });
      expect(again.status).toBe(403);
    } finally {
      await ingestions.idle();
      fs.rmSync(tree, { recursive: true, force: true });
    }
  });

  it("changes a site's source, or deletes it, only between its ingestions", async () => {
    const many = path.join(docsRoot, 'many');
    fs.mkdirSync(many, { recursive: true });
    for (let i = 0; i < 300; i++)
      fs.writeFileSync(
        path.join(many, `page-${i}.md`),
        `# Page ${i}\n\n${'Words about widgets. '.repeat(40)}\n`,
      );
    expect((await call('POST', '/v1/admin/sites', a.adminKey, { domain: 'busy' })).status).toBe(201);
    const started = await call('POST', '/v1/admin/sites/busy/ingestions', a.adminKey, { docsDir: 'many' });
    expect(started.status).toBe(202);
    // While it reads the folder: before, these answered 409 or 204 but had changed the site already.
    const refusals = [
      await call('PATCH', '/v1/admin/sites/busy', a.adminKey, { docsDir: 'tiny' }),
      await call('POST', '/v1/admin/sites/busy/ingestions', a.adminKey, { docsDir: 'tiny' }),
      await call('DELETE', '/v1/admin/sites/busy', a.adminKey),
    ];
    expect(refusals.map((r) => r.status)).toEqual([409, 409, 409]);
    expect(refusals[0]?.json.error?.message).toMatch(
      /^An ingestion of this site is running \(ing_\w+\): change its source once it has finished$/,
    );
    expect((await call('GET', '/v1/admin/sites/busy', a.adminKey)).json.docsDir).toBe(many);
    await ingestions.idle();
    const done = await call('GET', started.json.statusUrl as string, a.adminKey);
    expect(done.json).toMatchObject({ status: 'success', counts: { pages: 300 } });
    // Another server's ingestion, as the job table shows it, holds the site too; a CLI's (no instance)
    // does not, as nothing tells whether it still runs.
    expect((await call('POST', '/v1/admin/sites', a.adminKey, { domain: 'elsewhere' })).status).toBe(201);
    const elsewhere = await getOrganizationSite(database.storage, a.organization.id, 'elsewhere');
    if (!elsewhere) throw new Error('no site');
    const cli = await createIngestionJob(database.storage, elsewhere.id, many, null);
    expect((await call('PATCH', '/v1/admin/sites/elsewhere', a.adminKey, { docsDir: 'tiny' })).status).toBe(
      200,
    );
    const instance = await registerInstance(database.storage);
    const other = await createIngestionJob(database.storage, elsewhere.id, many, instance.id);
    const held = await call('DELETE', '/v1/admin/sites/elsewhere', a.adminKey);
    expect(held.status).toBe(409);
    expect(held.json.error?.message).toContain(`(${other.id})`);
    await failIngestionJob(database.storage, other.id, new Error('stopped'));
    await failIngestionJob(database.storage, cli.id, new Error('stopped'));
    expect((await call('DELETE', '/v1/admin/sites/elsewhere', a.adminKey)).status).toBe(204);
    expect((await call('DELETE', '/v1/admin/sites/busy', a.adminKey)).status).toBe(204);
  });

  it('isolates organizations on every route', async () => {
    // B has a thread and usage of its own.
    const asked = await app.request('/v1/assistant/bravo/message', {
      method: 'POST',
      headers: { Authorization: `Bearer ${b.assistantKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(askBody()),
    });
    expect(asked.status).toBe(200);
    await asked.text();
    const bThread = asked.headers.get('X-Thread-Id') ?? '';
    const bKeys = await call('GET', '/v1/admin/keys', b.adminKey);
    const bKeyId = (bKeys.json.keys as { id: string }[])[0]?.id ?? '';
    const aUsageBefore = (await call('GET', '/v1/admin/usage', a.adminKey)).json;

    const attempts: [string, string, unknown?][] = [
      ['GET', '/v1/admin/sites/bravo'],
      ['PATCH', '/v1/admin/sites/bravo', { name: 'mine now' }],
      ['DELETE', '/v1/admin/sites/bravo'],
      ['DELETE', `/v1/admin/keys/${bKeyId}`],
      ['POST', '/v1/admin/keys', { kind: 'assistant', site: 'bravo' }],
      ['GET', '/v1/admin/keys?site=bravo'],
      ['GET', `/v1/admin/threads/${bThread}`],
      ['GET', '/v1/admin/threads?site=bravo'],
    ];
    for (const [method, url, body] of attempts) {
      const response = await call(method, url, a.adminKey, body);
      expect(response.status, `${method} ${url}`).toBe(404);
    }
    const aSites = (await call('GET', '/v1/admin/sites', a.adminKey)).json.sites as { domain: string }[];
    expect(aSites.map((s) => s.domain)).not.toContain('bravo');
    const aThreads = (await call('GET', '/v1/admin/threads', a.adminKey)).json.threads as { id: string }[];
    expect(aThreads.map((t) => t.id)).not.toContain(bThread);
    const aKeys = (await call('GET', '/v1/admin/keys', a.adminKey)).json.keys as { id: string }[];
    expect(aKeys.map((k) => k.id)).not.toContain(bKeyId);

    // A's assistant key cannot ask B's site (so neither search it nor spend through it) …
    const crossAsk = await app.request('/v1/assistant/bravo/message', {
      method: 'POST',
      headers: { Authorization: `Bearer ${a.assistantKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...askBody(), threadId: bThread }),
    });
    expect(crossAsk.status).toBe(403);
    // … nor continue B's thread through its own site.
    const crossThread = await app.request('/v1/assistant/alpha/message', {
      method: 'POST',
      headers: { Authorization: `Bearer ${a.assistantKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...askBody(), threadId: bThread }),
    });
    expect(crossThread.status).toBe(404);
    // B's resources are untouched, and A's usage shows none of B's spending.
    expect((await call('GET', '/v1/admin/sites/bravo', b.adminKey)).json.name).toBe('bravo');
    expect((await call('GET', `/v1/admin/threads/${bThread}`, b.adminKey)).status).toBe(200);
    const bUsage = (await call('GET', '/v1/admin/usage', b.adminKey)).json as {
      totals: { requests: number };
    };
    expect(bUsage.totals.requests).toBe(1);
    const aUsageAfter = (await call('GET', '/v1/admin/usage', a.adminKey)).json as {
      totals: { requests: number };
    };
    // The refused cross-thread request was charged to A and refunded.
    expect(aUsageAfter.totals).toEqual((aUsageBefore as { totals: unknown }).totals);
  });

  it('reports usage per day and lists and reads threads', async () => {
    const tenant = await createTenant(database.storage, { domain: 'usage', plan: { monthlyCredits: 10 } });
    const threadIds: string[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await app.request('/v1/assistant/usage/message', {
        method: 'POST',
        headers: { Authorization: `Bearer ${tenant.assistantKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(askBody(`Question ${i}`)),
      });
      await response.text();
      threadIds.push(response.headers.get('X-Thread-Id') ?? '');
    }
    const usage = await call('GET', '/v1/admin/usage', tenant.adminKey);
    const today = new Date().toISOString().slice(0, 10);
    expect(usage.json).toMatchObject({
      period: { month: today.slice(0, 7), included: 10, used: 3, overage: 0, remaining: 7 },
      days: [{ day: today, requests: 3, credits: 3, overage: 0 }],
      totals: { requests: 3, credits: 3, overage: 0 },
    });
    const past = await call('GET', '/v1/admin/usage?from=2020-01-01&to=2020-01-31', tenant.adminKey);
    expect(past.json.days).toEqual([]);
    for (const query of [
      'from=2020-02-30',
      'from=2020-02-01&to=2020-01-01',
      'from=2020-01-01&to=2022-01-01',
      'x=1',
    ]) {
      expect((await call('GET', `/v1/admin/usage?${query}`, tenant.adminKey)).status, query).toBe(400);
    }
    // One problem, said once.
    const malformed = await call('GET', '/v1/admin/usage?from=abc', tenant.adminKey);
    expect(malformed.json.error?.details).toEqual([{ path: 'from', message: 'must be a date YYYY-MM-DD' }]);

    const threads = await call('GET', '/v1/admin/threads?limit=2', tenant.adminKey);
    const listed = threads.json.threads as { id: string; messageCount: number; site: string }[];
    expect(listed).toHaveLength(2);
    expect(listed.every((t) => t.site === 'usage' && t.messageCount === 2)).toBe(true);
    expect(threadIds).toEqual(expect.arrayContaining(listed.map((t) => t.id)));
    const transcript = await call('GET', `/v1/admin/threads/${threadIds[0]}`, tenant.adminKey);
    expect(transcript.json).toMatchObject({ id: threadIds[0], site: 'usage', fp: 'anonymous' });
    const messages = transcript.json.messages as { role: string; content: string }[];
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(messages[0]?.content).toBe('Question 0');
    expect((await call('GET', '/v1/admin/threads?limit=0', tenant.adminKey)).status).toBe(400);
    expect((await call('GET', '/v1/admin/threads?cursor=nope', tenant.adminKey)).status).toBe(400);

    // Threads active in the same millisecond: paging by cursor lists each once. (By `before`, the page
    // after the first skipped the other two.)
    await database.storage.db
      .updateTable('threads')
      .set({ updated_at: '2026-01-01T00:00:00.000Z' })
      .where('id', 'in', threadIds)
      .execute();
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { json: Record<string, unknown> } = await call(
        'GET',
        `/v1/admin/threads?limit=1${cursor === null ? '' : `&cursor=${cursor}`}`,
        tenant.adminKey,
      );
      seen.push(...(page.json.threads as { id: string }[]).map((t) => t.id));
      cursor = page.json.nextCursor as string | null;
    } while (cursor !== null && seen.length < 10);
    expect(seen.sort()).toEqual([...threadIds].sort());
  });

  it('rate-limits the admin API per organization with its own limit', async () => {
    const tenant = await createTenant(database.storage, {
      domain: 'busy',
      plan: { adminRequestsPerMinute: 3 },
    });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await call('GET', '/v1/admin/sites', tenant.adminKey)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const limited = await call('GET', '/v1/admin/sites', tenant.adminKey);
    expect(limited.json.error?.code).toBe('rate_limited');
    expect(limited.headers.get('RateLimit-Limit')).toBe('3');
    expect(Number(limited.headers.get('Retry-After'))).toBeGreaterThan(0);
  });

  it(`refuses a body past ${MAX_ADMIN_BODY_BYTES} bytes with 413, declared or streamed, before reading it`, async () => {
    // Declared too large: refused on the header, whatever follows.
    const declared = await app.request('/v1/admin/sites/alpha/settings', {
      method: 'PATCH',
      headers: {
        Authorization: `Bearer ${a.adminKey}`,
        'Content-Type': 'application/json',
        'Content-Length': String(MAX_ADMIN_BODY_BYTES + 1),
      },
      body: '{}',
    });
    expect(declared.status).toBe(413);
    expect(((await declared.json()) as Json).error).toMatchObject({
      code: 'payload_too_large',
      requestId: expect.any(String),
    });
    const large = await call('PATCH', '/v1/admin/sites/alpha/settings', a.adminKey, {
      instructions: 'x'.repeat(MAX_ADMIN_BODY_BYTES),
    });
    expect(large.status).toBe(413);
    // Chunked, without a Content-Length: counted as it arrives, and the rest never buffered.
    let sent = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += 16_384;
        controller.enqueue(new Uint8Array(16_384).fill(0x20));
        if (sent > 64 * MAX_ADMIN_BODY_BYTES) controller.close();
      },
    });
    const streamed = await app.request('/v1/admin/keys', {
      method: 'POST',
      headers: { Authorization: `Bearer ${a.adminKey}`, 'Content-Type': 'application/json' },
      body: endless,
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(sent).toBeLessThan(4 * MAX_ADMIN_BODY_BYTES);
    // The console's forms, sign-in included (read before any session exists), have their own bound.
    const signIn = await app.request('http://localhost/console/login', {
      method: 'POST',
      headers: { Origin: 'http://localhost', 'Content-Type': 'application/x-www-form-urlencoded' },
      body: `key=${'a'.repeat(MAX_CONSOLE_FORM_BYTES)}`,
    });
    expect(signIn.status).toBe(413);
    // Within the bounds, the same requests are read and judged as before.
    const settings = await call('PATCH', '/v1/admin/sites/alpha/settings', a.adminKey, {
      instructions: 'x'.repeat(5_000),
    });
    expect(settings.status).toBe(400);
    const wrongKey = await app.request('http://localhost/console/login', {
      method: 'POST',
      headers: { Origin: 'http://localhost', 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'key=svc_wrong',
    });
    expect(wrongKey.status).toBe(401);
  });

  it('serves an OpenAPI 3.1 document built from the route schemas', async () => {
    const response = await app.request('/openapi.json');
    expect(response.status).toBe(200);
    const document = (await response.json()) as {
      openapi: string;
      paths: Record<
        string,
        Record<string, { requestBody?: { content: Record<string, { schema: unknown }> } }>
      >;
    };
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        '/v1/admin/ingestions/{id}',
        '/v1/admin/keys',
        '/v1/admin/keys/{id}',
        '/v1/admin/sites',
        '/v1/admin/sites/{domain}',
        '/v1/admin/sites/{domain}/ingestions',
        '/v1/admin/threads',
        '/v1/admin/threads/{id}',
        '/v1/admin/usage',
        '/v1/assistant/{domain}/message',
        '/v2/assistant/{domain}/feedback',
        '/v2/assistant/{domain}/config',
        '/v2/assistant/{domain}/message',
        '/v2/assistant/{domain}/message/{chatId}/stream',
        '/sites/{domain}/pages/{path}',
        '/sites/{domain}/llms.txt',
        '/sites/{domain}/llms-full.txt',
      ]),
    );
    expect(Object.keys(document.paths['/v1/admin/sites/{domain}'] ?? {})).toEqual(
      expect.arrayContaining(['delete', 'get', 'patch']),
    );
    const createSite =
      document.paths['/v1/admin/sites']?.post?.requestBody?.content['application/json']?.schema;
    expect(createSite).toMatchObject({
      type: 'object',
      required: ['domain'],
      additionalProperties: false,
      properties: { domain: { type: 'string', maxLength: 63 } },
    });
    const assistant = document.paths['/v1/assistant/{domain}/message']?.post?.requestBody?.content[
      'application/json'
    ]?.schema as { required: string[] };
    expect(assistant.required).toEqual(expect.arrayContaining(['fp', 'messages']));
    const feedback =
      document.paths['/v2/assistant/{domain}/feedback']?.post?.requestBody?.content['application/json']
        ?.schema;
    expect(feedback).toMatchObject({
      required: ['fp', 'threadId', 'messageId', 'rating'],
      additionalProperties: false,
      properties: { rating: { enum: ['up', 'down'] } },
    });
  });
});
