import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../testing/databases.ts';
import { startTestServer, type TestServer } from '../testing/server.ts';
import { smallDocs } from '../testing/small-docs.ts';
import { bootstrapSite } from './bootstrap-site.ts';

/** A domain from a URL reaches the site lookup: one PostgreSQL cannot take as text was a 500 there. */
describe.each(dialects)('looking up a site by a hostile domain on %s', (dialect) => {
  let server: TestServer;
  let key: string;
  beforeAll(async () => {
    server = await startTestServer(dialect);
    key = (await bootstrapSite(server.storage, { domain: 'docs', docsDir: smallDocs() })).assistantKey;
  });
  afterAll(async () => {
    await server?.stop();
  });

  it.each([
    ['POST', '/v1/assistant/%00/message'],
    ['POST', '/v2/assistant/a%00b/message'],
    ['POST', '/v1/search/%00'],
    ['POST', '/mcp/%00'],
    ['GET', '/sites/%00/llms.txt'],
    ['GET', '/sites/%00/pages/keys'],
    ['OPTIONS', '/v1/assistant/%00/message'],
  ])('%s %s is a 4xx, never a 5xx', async (method, url) => {
    const response = await fetch(`${server.baseUrl}${url}`, {
      method,
      headers: {
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        Authorization: `Bearer ${key}`,
        Origin: 'https://docs.example.com',
      },
      ...(method === 'POST' ? { body: JSON.stringify({ fp: 'a', query: 'x', messages: [] }) } : {}),
    });
    expect(response.status, url).toBeGreaterThanOrEqual(200);
    expect(response.status, url).toBeLessThan(500);
    await response.arrayBuffer();
  });
});
