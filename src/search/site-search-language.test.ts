import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../tenancy/organizations.ts';
import { createSite } from '../tenancy/sites.ts';
import { createTestDatabase, type TestDatabase } from '../testing/databases.ts';
import { seedSite } from '../testing/seed-site.ts';
import { SiteSearch } from './site-search.ts';

/** A search with no language filter on a site in English and French (SiteSearch.search). */
describe('the language a search without a language filter takes', () => {
  let database: TestDatabase;
  let search: SiteSearch;
  let siteId: string;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    const organizationId = (await createOrganization(database.storage, { name: 'o' })).id;
    siteId = (await createSite(database.storage, { organizationId, domain: 'bilingual' })).id;
    await seedSite(database.storage, siteId, [
      {
        path: 'en/keys',
        title: 'API keys',
        chunks: ['Rotate the API key with acme keys rotate.'],
        languages: ['en'],
      },
      {
        path: 'fr/keys',
        title: 'Clés API',
        chunks: [
          'Faites pivoter la clé API avec acme keys rotate. La commande acme keys rotate affiche la clé.',
        ],
        languages: ['fr'],
      },
      {
        path: 'fr/billing',
        title: 'Facturation',
        chunks: ['La facturation mensuelle arrive le premier jour.'],
        languages: ['fr'],
      },
    ]);
    search = new SiteSearch(database.storage);
  });
  afterAll(async () => {
    await database?.drop();
  });

  const paths = async (query: string, options: { languageOf?: string; language?: string } = {}) =>
    (await search.search(siteId, query, { limit: 5, ...options })).map((r) => r.pagePath);

  it("is the question's own, told by its words", async () => {
    expect(await paths('What does the acme keys rotate command do?')).toEqual(['en/keys']);
    expect(await paths('Que fait la commande acme keys rotate ?')).toEqual(['fr/keys']);
    // Keywords alone: every language.
    expect((await paths('acme keys rotate')).sort()).toEqual(['en/keys', 'fr/keys']);
    // A filter the caller gives wins.
    expect(await paths('What does the acme keys rotate command do?', { language: 'fr' })).toEqual([
      'fr/keys',
    ]);
  });

  it('is told from languageOf when the query holds more than the question', async () => {
    const query = 'What does the acme keys rotate command do? Que fait la commande ?';
    expect(await paths(query, { languageOf: 'Que fait la commande acme keys rotate ?' })).toContain(
      'fr/keys',
    );
    expect(await paths(query, { languageOf: 'Que fait la commande acme keys rotate ?' })).not.toContain(
      'en/keys',
    );
  });

  it('is a preference: when its pages have nothing, every language is searched', async () => {
    expect(await paths('What is the facturation mensuelle about?')).toEqual(['fr/billing']);
  });
});
