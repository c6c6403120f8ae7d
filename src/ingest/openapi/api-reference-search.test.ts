import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../../limits/limits-fixtures.ts';
import { SiteSearch } from '../../search/site-search.ts';
import { updateSite } from '../../tenancy/sites.ts';
import { createTestDatabase, type TestDatabase } from '../../testing/databases.ts';
import { corpusDir } from '../../testing/paths.ts';
import { ingestSite } from '../ingest-site.ts';

/**
 * The bar of the API reference work: a question about an endpoint's parameter finds that endpoint's
 * reference page among the first three pages. The questions were written for this test, the way a reader
 * asks them, naming the parameter and what it is for rather than the page title; each page is one that
 * exists only because of the spec (Ollama's navigation entries) or the parameter is named only in the
 * spec, never in the page's own MDX (Mintlify's `openapi:` front matter pages).
 */
const QUESTIONS: { site: 'ollama' | 'mintlify-docs'; question: string; page: string }[] = [
  { site: 'ollama', question: 'what does keep_alive do when generating a completion', page: 'api/generate' },
  { site: 'ollama', question: 'how do I get log probabilities of output tokens in chat', page: 'api/chat' },
  { site: 'ollama', question: 'embed request truncate parameter and dimensions', page: 'api/embed' },
  { site: 'ollama', question: 'how to quantize a model when creating it with the API', page: 'api/create' },
  { site: 'ollama', question: 'pull a model from an insecure registry', page: 'api/pull' },
  { site: 'ollama', question: 'which fields tell how much VRAM a running model uses', page: 'api/ps' },
  { site: 'ollama', question: 'copy model source destination request body', page: 'api/copy' },
  {
    site: 'ollama',
    question: 'verbose flag to show full model details',
    page: 'api-reference/show-model-details',
  },
  // Each names a field that the page's own MDX never mentions: only the spec has it.
  {
    site: 'mintlify-docs',
    question: 'minimum relevance scoreThreshold when searching the docs through the API',
    page: 'api/assistant/search',
  },
  {
    site: 'mintlify-docs',
    question: 'page content API: what is the groups parameter for',
    page: 'api/assistant/get-page-content',
  },
  {
    site: 'mintlify-docs',
    question: 'feedback by page: filter on where the feedback came from (source)',
    page: 'api/analytics/feedback-by-page',
  },
];

const BASE_URL = 'https://docs.example.com';

describe('API reference pages are found by parameter questions', () => {
  let database: TestDatabase;
  const tenants = new Map<string, Tenant>();
  let search: SiteSearch;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    for (const site of ['ollama', 'mintlify-docs'] as const) {
      const tenant = await createTenant(database.storage, { domain: site });
      await updateSite(database.storage, tenant.site.id, { base_url: BASE_URL });
      await ingestSite(database.storage, tenant.site.id, corpusDir(site));
      tenants.set(site, tenant);
    }
    search = new SiteSearch(database.storage);
  }, 300_000);
  afterAll(() => database?.drop());

  for (const { site, question, page } of QUESTIONS) {
    it(`${site}: "${question}" → ${page}`, async () => {
      const tenant = tenants.get(site);
      if (!tenant) throw new Error(`site ${site} not ingested`);
      const results = await search.search(tenant.site.id, question, {
        limit: 20,
        ...(site === 'mintlify-docs' ? { language: 'en' } : {}),
      });
      const pages = [...new Set(results.map((r) => r.pagePath))];
      expect(pages.slice(0, 3), `ranked pages: ${pages.slice(0, 6).join(', ')}`).toContain(page);
      // The citation deep-links to the reference page as the hosted docs serve it.
      expect(results.find((r) => r.pagePath === page)?.url).toMatch(new RegExp(`^${BASE_URL}/${page}(#|$)`));
    });
  }
});
