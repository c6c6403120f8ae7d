import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { askBody } from '../../limits/limits-fixtures.ts';
import { bootstrapSite } from '../../tenancy/bootstrap-site.ts';
import { deleteSite } from '../../tenancy/sites.ts';
import { dialects } from '../../testing/databases.ts';
import { startTestServer, type TestServer } from '../../testing/server.ts';
import { smallDocs } from '../../testing/small-docs.ts';

/**
 * A site deleted by another process (the CLI, another server) stays in this server's tenancy cache for
 * a few seconds. Requests in that window must get a 4xx, not a 500 from a foreign key.
 */
describe.each(dialects)('a site deleted behind the cache on %s', (dialect) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer(dialect);
  });
  afterAll(async () => {
    await server?.stop();
  });

  const v2 = (text: string) => ({
    fp: 'anonymous',
    messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text }] }],
  });

  it.each([
    ['/v1/assistant/{domain}/message', askBody('How do I install it?')],
    ['/v2/assistant/{domain}/message', v2('How do I install it?')],
    ['/v1/search/{domain}', { query: 'install' }],
    ['/v1/context/{domain}', { query: 'install' }],
  ])('answers %s without a 5xx', async (route, body) => {
    const domain = `gone-${route.split('/')[2]}-${route.split('/')[1]}`;
    const { site, assistantKey } = await bootstrapSite(server.storage, { domain, docsDir: smallDocs() });
    const send = () =>
      fetch(`${server.baseUrl}${route.replace('{domain}', domain)}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${assistantKey}` },
        body: JSON.stringify(body),
      });
    const warm = await send();
    expect(warm.status).toBe(200);
    await warm.arrayBuffer();
    expect(await deleteSite(server.storage, site.organization_id, site.id)).toBe('deleted');
    const response = await send();
    if (route.includes('/assistant/')) {
      // An answer stores a thread under the site: refused, as for any unknown site.
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('not_found');
      // Charged once, for the answer before the deletion: the refused one kept no charge.
      const ledger = await server.storage.db
        .selectFrom('credit_ledger')
        .select((eb) => eb.fn.sum<number>('credits').as('total'))
        .where('organization_id', '=', site.organization_id)
        .executeTakeFirstOrThrow();
      expect(Number(ledger.total)).toBe(1);
    } else {
      // Reads may serve the cached index until the tenancy cache lets the site go (documented).
      expect(response.status).toBe(200);
      await response.arrayBuffer();
    }
  });
});
