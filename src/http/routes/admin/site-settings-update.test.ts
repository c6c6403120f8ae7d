import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../../tenancy/api-keys.ts';
import { bootstrapSite } from '../../../tenancy/bootstrap-site.ts';
import { getSiteByDomain } from '../../../tenancy/sites.ts';
import { repoRoot } from '../../../testing/paths.ts';
import { startTestServer, type TestServer } from '../../../testing/server.ts';

describe('PATCH /v1/admin/sites/{domain}/settings', () => {
  let server: TestServer;
  let adminKey: string;
  let otherAdminKey: string;

  const patch = (body: unknown, key = adminKey, domain = 'acme') =>
    fetch(`${server.baseUrl}/v1/admin/sites/${domain}/settings`, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
      body: JSON.stringify(body),
    });

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    const docs = `${repoRoot}/docs`;
    const acme = await bootstrapSite(server.storage, { domain: 'acme', docsDir: docs });
    const other = await bootstrapSite(server.storage, { domain: 'other', docsDir: docs });
    adminKey = (
      await createApiKey(server.storage, {
        organizationId: acme.organization.id,
        siteId: null,
        kind: 'admin',
      })
    ).key;
    otherAdminKey = (
      await createApiKey(server.storage, {
        organizationId: other.organization.id,
        siteId: null,
        kind: 'admin',
      })
    ).key;
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('sets, reads back and clears the model and instructions', async () => {
    const set = await patch({ model: 'anthropic:claude-3-5-haiku-latest', instructions: ' Be brief. ' });
    expect(set.status).toBe(200);
    expect(await set.json()).toEqual({
      domain: 'acme',
      model: 'anthropic:claude-3-5-haiku-latest',
      instructions: 'Be brief.',
      starterQuestions: null,
      modelOptions: null,
      // The test server has no Anthropic key: the owner is told, not left to find out from the answers.
      modelInUse: {
        model: 'builtin',
        problem: 'provider anthropic is not configured on this server (ANTHROPIC_API_KEY not set)',
      },
    });
    expect(await getSiteByDomain(server.storage, 'acme')).toMatchObject({
      model: 'anthropic:claude-3-5-haiku-latest',
      instructions: 'Be brief.',
    });
    const read = await patch({});
    expect(await read.json()).toMatchObject({ model: 'anthropic:claude-3-5-haiku-latest' });
    const cleared = await patch({ model: null });
    expect(await cleared.json()).toEqual({
      domain: 'acme',
      model: null,
      instructions: 'Be brief.',
      starterQuestions: null,
      modelOptions: null,
      modelInUse: { model: 'builtin', problem: null },
    });
    const unparsable = await patch({ model: 'builtin' });
    expect(((await unparsable.json()) as { modelInUse: unknown }).modelInUse).toEqual({
      model: 'builtin',
      problem: null,
    });
  });

  it('sets, keeps and clears the model options, refusing out-of-range ones with the field', async () => {
    const set = await patch({
      modelOptions: { temperature: 0.2, maxOutputTokens: 600, reasoningEffort: 'high' },
    });
    expect(await set.json()).toMatchObject({
      modelOptions: { temperature: 0.2, maxOutputTokens: 600, reasoningEffort: 'high' },
    });
    expect(((await (await patch({ model: null })).json()) as { modelOptions: unknown }).modelOptions).toEqual(
      {
        temperature: 0.2,
        maxOutputTokens: 600,
        reasoningEffort: 'high',
      },
    );
    const bad = await patch({ modelOptions: { temperature: 3 } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { details: unknown[] } }).error.details).toEqual([
      { path: 'modelOptions.temperature', message: 'must be at most 2' },
    ]);
    expect((await patch({ modelOptions: { topP: 0.5 } })).status).toBe(400);
    expect(
      ((await (await patch({ modelOptions: null })).json()) as { modelOptions: unknown }).modelOptions,
    ).toBeNull();
  });

  it('answers 400 naming the field for a bad model or unknown keys, never a 5xx', async () => {
    const bad = await patch({ model: 'gpt-4o' });
    expect(bad.status).toBe(400);
    const body = (await bad.json()) as {
      error: { code: string; details: { path: string; message: string }[] };
    };
    expect(body.error.code).toBe('invalid_request');
    expect(body.error.details[0]).toMatchObject({
      path: 'model',
      message: expect.stringContaining('provider'),
    });
    expect((await patch({ temperature: 1 })).status).toBe(400);
    expect((await patch({ instructions: 'x'.repeat(4_001) })).status).toBe(400);
  });

  it("needs an admin key of the site's organization", async () => {
    expect((await patch({ model: 'builtin' }, 'svc_wrong')).status).toBe(401);
    expect((await patch({ model: 'builtin' }, otherAdminKey)).status).toBe(404);
  });
});
