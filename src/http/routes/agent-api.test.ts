import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_CONTEXT_TOKENS } from '../../agents/context-pack.ts';
import { MAX_AGENT_BODY_BYTES } from '../../agents/request-schemas.ts';
import { bootstrapSite } from '../../tenancy/bootstrap-site.ts';
import { setOrganizationPlan } from '../../tenancy/organizations.ts';
import { upsertPlan } from '../../tenancy/plans.ts';
import { updateSite } from '../../tenancy/sites.ts';
import { dialects } from '../../testing/databases.ts';
import { startTestServer, type TestServer } from '../../testing/server.ts';
import { smallDocs } from '../../testing/small-docs.ts';
import { versionedDocs } from '../../testing/versioned-docs.ts';

interface Hit {
  content: string;
  path: string;
  metadata: { title: string; breadcrumbs: string[]; url: string; version?: string; score: number };
}

describe.each(dialects)('search, page and context APIs on %s', (dialect) => {
  let server: TestServer;
  let key = '';
  let otherKey = '';
  let limitedKey = '';

  beforeAll(async () => {
    server = await startTestServer(dialect);
    key = (await bootstrapSite(server.storage, { domain: 'versioned', docsDir: versionedDocs() }))
      .assistantKey;
    otherKey = (await bootstrapSite(server.storage, { domain: 'acme', docsDir: smallDocs() })).assistantKey;
    const limited = await bootstrapSite(server.storage, { domain: 'limited', docsDir: smallDocs() });
    limitedKey = limited.assistantKey;
    await upsertPlan(server.storage, 'two-an-hour', {
      name: 'two an hour',
      monthlyCredits: 100,
      orgRequestsPerHour: 2,
      ipRequestsPerDay: 1_000,
    });
    await setOrganizationPlan(server.storage, limited.organization.id, 'two-an-hour');
  });
  afterAll(async () => {
    await server?.stop();
  });

  const post = (
    path: string,
    body: unknown,
    auth: string | null = key,
    headers: Record<string, string> = {},
  ) =>
    fetch(`${server.baseUrl}${path}`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        ...(auth === null ? {} : { Authorization: `Bearer ${auth}` }),
        ...headers,
      },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('searches: sections with absolute links, scores relative to the best, page size', async () => {
    const response = await post('/v1/search/versioned', { query: 'install the widget installer' });
    expect(response.status).toBe(200);
    expect(response.headers.get('ratelimit-limit')).not.toBeNull();
    const hits = (await response.json()) as Hit[];
    expect(hits.length).toBeGreaterThan(1);
    expect(hits[0]?.metadata.score).toBe(1);
    for (const [i, hit] of hits.entries()) {
      expect(hit.metadata.url).toMatch(new RegExp(`^${server.baseUrl}/sites/versioned/pages/`));
      expect(hit.metadata.score).toBeGreaterThan(0);
      expect(hit.metadata.score).toBeLessThanOrEqual(hits[i - 1]?.metadata.score ?? 1);
      expect(hit.metadata.breadcrumbs[0]).toBe(hit.metadata.title);
      expect(hit.content.length).toBeGreaterThan(0);
    }
    const one = (await (
      await post('/v1/search/versioned', { query: 'widget', pageSize: 1 })
    ).json()) as Hit[];
    expect(one).toHaveLength(1);
    // A threshold of 1 keeps only what scores as well as the best.
    const best = (await (
      await post('/v1/search/versioned', { query: 'install the widget installer', scoreThreshold: 1 })
    ).json()) as Hit[];
    expect(best.length).toBeGreaterThan(0);
    expect(best.length).toBeLessThan(hits.length);
    expect(best.every((h) => h.metadata.score === 1)).toBe(true);
  });

  it('honours version and language filters and never shows a hidden page', async () => {
    const v1 = (await (
      await post('/v1/search/versioned', { query: 'install widget', filter: { version: 'v1' } })
    ).json()) as Hit[];
    expect(v1.map((h) => h.path)).toContain('v1/setup');
    expect(v1.map((h) => h.path)).not.toContain('v2/setup');
    expect(v1.find((h) => h.path === 'v1/setup')?.metadata.version).toBe('v1');
    // A filter in another case or with spaces is the same version, and results name it as the docs do.
    const cased = (await (
      await post('/v1/search/versioned', { query: 'install widget', filter: { version: ' V1 ' } })
    ).json()) as Hit[];
    expect(cased.map((h) => [h.path, h.metadata.version])).toEqual(
      v1.map((h) => [h.path, h.metadata.version]),
    );
    for (const path of ['/v1/search/versioned', '/v1/context/versioned']) {
      const unknown = await post(path, { query: 'install widget', filter: { version: '3.0' } });
      expect(unknown.status, path).toBe(400);
      expect(((await unknown.json()) as { error: { message: string } }).error.message, path).toBe(
        'These docs have no version "3.0"; their versions are v1, v2',
      );
    }
    const es = (await (
      await post('/discovery/v1/search/versioned', { query: 'instalar widget', filter: { language: 'es' } })
    ).json()) as Hit[];
    expect(es.map((h) => h.path)).toContain('es/instalar');
    const secret = (await (
      await post('/v1/search/versioned', { query: 'zebrafish rotation password' })
    ).json()) as Hit[];
    expect(secret.map((h) => h.path)).not.toContain('internal/secret');
    expect((await post('/v1/page/versioned', { path: 'internal/secret' })).status).toBe(404);
  });

  it('reads a page as Markdown by the path search gives, with or without a slash or extension', async () => {
    for (const path of ['v2/setup', '/v2/setup', 'v2/setup.mdx', '/v2/setup/']) {
      const response = await post('/v1/page/versioned', { path });
      expect(response.status, path).toBe(200);
      const page = (await response.json()) as { path: string; content: string };
      expect(page.path).toBe('v2/setup');
      expect(page.content).toBe(
        '# Set up the widget\n\n> Install the widget in two minutes.\n\nRun `acme install --widget` to install the widget.\n\n## Configure the installer\n\nThe installer reads `acme.toml` for the widget colour and position.\n\n### Proxy settings\n\nSet `HTTPS_PROXY` before running the installer behind a proxy.\n',
      );
    }
    // Trimmed as get_page trims it: blank is a bad request, not a page that is missing.
    const blank = await post('/v1/page/versioned', { path: '   ' });
    expect(blank.status).toBe(400);
    expect(((await blank.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
    const missing = await post('/v1/page/versioned', { path: 'nope' });
    expect(missing.status).toBe(404);
    const body = (await missing.json()) as { error: { code: string; requestId: string } };
    expect(body.error.code).toBe('not_found');
    expect(body.error.requestId).toMatch(/\S/);
  });

  it('packs the best sections into a token budget, numbered, with their links', async () => {
    const wide = (await (
      await post('/v1/context/versioned', { query: 'widget installer proxy', tokenBudget: 2_000 })
    ).json()) as {
      tokens: number;
      sections: { n: number; url: string; tokens: number; content: string }[];
      text: string;
    };
    expect(wide.sections.length).toBeGreaterThan(1);
    expect(wide.tokens).toBeLessThanOrEqual(2_000);
    expect(wide.sections.map((s) => s.n)).toEqual(wide.sections.map((_, i) => i + 1));
    expect(wide.text.startsWith('[1] ')).toBe(true);
    for (const s of wide.sections) {
      expect(wide.text).toContain(s.content);
      expect(s.url.startsWith(server.baseUrl)).toBe(true);
    }
    const tight = (await (
      await post('/v1/context/versioned', { query: 'widget installer proxy', tokenBudget: 40 })
    ).json()) as { tokens: number; sections: unknown[] };
    expect(tight.tokens).toBeLessThanOrEqual(40);
    expect(tight.sections.length).toBeLessThan(wide.sections.length);
  });

  it('answers bad input with a 4xx JSON error', async () => {
    const cases: [string, unknown, number][] = [
      ['/v1/search/versioned', {}, 400],
      ['/v1/search/versioned', { query: '   ' }, 400],
      ['/v1/search/versioned', { query: 'x', pageSize: 51 }, 400],
      ['/v1/search/versioned', { query: 'x', scoreThreshold: 1.5 }, 400],
      ['/v1/search/versioned', { query: 'x', extra: true }, 400],
      // Not a version of these docs (and a prototype key): refused like any other unknown version.
      ['/v1/search/versioned', { query: 'x', filter: { version: 'constructor' } }, 400],
      ['/v1/search/versioned', { query: 'x'.repeat(2_001) }, 400],
      ['/v1/search/versioned', '{"query":', 400],
      ['/v1/search/versioned', { query: 'x'.repeat(MAX_AGENT_BODY_BYTES) }, 413],
      ['/v1/page/versioned', { path: '' }, 400],
      ['/v1/page/versioned', { path: 'a\u0000b' }, 400],
      ['/v1/search/versioned', { query: 'keys\u0000' }, 400],
      ['/v1/context/versioned', { query: 'x', tokenBudget: MAX_CONTEXT_TOKENS + 1 }, 400],
      ['/v1/context/versioned', { query: 'x', tokenBudget: 0 }, 400],
    ];
    for (const [path, body, status] of cases) {
      const response = await post(path, body);
      expect(response.status, `${path} ${JSON.stringify(body).slice(0, 60)}`).toBe(status);
      if (status >= 400)
        expect(((await response.json()) as { error: { code: string } }).error.code).toBeTruthy();
    }
    const text = await post('/v1/search/versioned', { query: 'x' }, key, { 'Content-Type': 'text/plain' });
    expect(text.status).toBe(415);
  });

  it('keeps organizations apart: a key reads only its own site, and a site without a key only when it is public', async () => {
    expect((await post('/v1/search/versioned', { query: 'widget' }, null)).status).toBe(401);
    expect((await post('/v1/search/versioned', { query: 'widget' }, otherKey)).status).toBe(403);
    expect((await post('/v1/page/versioned', { path: 'v2/setup' }, otherKey)).status).toBe(403);
    expect((await post('/v1/context/versioned', { query: 'widget' }, otherKey)).status).toBe(403);
    expect((await post('/v1/search/nowhere', { query: 'widget' })).status).toBe(404);
    const acme = await server.storage.db
      .selectFrom('sites')
      .selectAll()
      .where('domain', '=', 'acme')
      .executeTakeFirstOrThrow();
    await updateSite(server.storage, acme.id, { public: 1 });
    // Written before any request read `acme`, so no cached site row hides the change.
    const open = await post('/v1/search/acme', { query: 'rotate keys' }, null);
    expect(open.status).toBe(200);
    expect(((await open.json()) as Hit[])[0]?.path).toBe('keys');
    // A wrong key is still refused on a public site: only the absence of a key reads it openly.
    expect((await post('/v1/search/acme', { query: 'rotate keys' }, 'svc_dsc_wrong')).status).toBe(401);
    expect((await post('/v1/search/versioned', { query: 'widget' }, null)).status).toBe(401);
  });

  it('is rate limited with the assistant, and costs no credit', async () => {
    expect((await post('/v1/search/limited', { query: 'billing' }, limitedKey)).status).toBe(200);
    expect((await post('/v1/page/limited', { path: 'billing' }, limitedKey)).status).toBe(200);
    const third = await post('/v1/context/limited', { query: 'billing' }, limitedKey);
    expect(third.status).toBe(429);
    const ledger = await server.storage.db.selectFrom('credit_ledger').select('id').execute();
    expect(ledger).toHaveLength(0);
  });
});
