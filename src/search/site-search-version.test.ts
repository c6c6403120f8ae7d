import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../tenancy/organizations.ts';
import { createSite } from '../tenancy/sites.ts';
import { createTestDatabase, type TestDatabase } from '../testing/databases.ts';
import { type SeedPage, seedSite } from '../testing/seed-site.ts';
import { SiteSearch } from './site-search.ts';

const OLD = 'Version 2025-06-18';
const NEW = 'Version 2026-07-28 (latest)';

/** A SiteSearch over one seeded site of its own database, and how to drop it. */
async function seededSearch(pages: SeedPage[]) {
  const database: TestDatabase = await createTestDatabase('sqlite');
  const organizationId = (await createOrganization(database.storage, { name: 'o' })).id;
  const siteId = (await createSite(database.storage, { organizationId, domain: 'versioned' })).id;
  await seedSite(database.storage, siteId, pages);
  return { search: new SiteSearch(database.storage), siteId, drop: () => database.drop() };
}

/** A question that names one of the site's versions (version-mentions.ts, SiteSearch.search). */
describe('a search whose question names a version', () => {
  let search: SiteSearch;
  let siteId: string;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    ({ search, siteId, drop } = await seededSearch([
      {
        path: 'old/tools',
        title: 'Tools',
        chunks: ['Tool names must be at most 128 characters long.'],
        versions: [OLD],
      },
      {
        path: 'new/tools',
        title: 'Tools',
        chunks: ['Tool names must be at most 64 characters long.'],
        versions: [NEW],
      },
      {
        // Unversioned, and says the version's name over and over, as changelogs and proposals do.
        path: 'proposals/tool-errors',
        title: 'Proposal: tool errors',
        chunks: [
          'Accepted for 2025-06-18. In 2025-06-18 a tool error is a result; 2025-06-18 clients show it.',
        ],
      },
      {
        path: 'old/sampling',
        title: 'Sampling',
        chunks: ['Sampling lets a server ask the client for a completion.'],
        versions: [OLD],
      },
    ]));
  });
  afterAll(async () => {
    await drop?.();
  });

  const paths = async (query: string, version?: string) =>
    (await search.search(siteId, query, { limit: 5, version })).map((r) => r.pagePath);
  const searchedIn = async (query: string, version?: string) => [
    ...new Set((await search.search(siteId, query, { limit: 5, version })).map((r) => r.searchedVersion)),
  ];

  it("reads the version's pages first: the name is the filter's, not words to find", async () => {
    expect((await paths('max length of tool names in 2025-06-18?', OLD))[0]).toBe('old/tools');
  });

  it('searches the version a question names when no filter is given, as a preference', async () => {
    const found = await paths('max length of tool names in 2025-06-18?');
    expect(found[0]).toBe('old/tools');
    expect(found).not.toContain('new/tools');
    // Two versions named: neither is chosen.
    expect(await paths('tool names 2025-06-18 vs 2026-07-28')).toContain('new/tools');
    // A filter given wins over the name.
    expect(await paths('tool names in 2025-06-18', NEW)).not.toContain('old/tools');
    // Nothing in the named version: every version is searched, with the question as asked.
    expect(await paths('sampling in 2026-07-28')).toEqual(['old/sampling']);
  });

  it('searches the question as asked when nothing is left once the name is taken out', async () => {
    expect(await paths('2025-06-18', OLD)).toEqual(['proposals/tool-errors']);
    expect(await paths('2025-06-18?')).toEqual(['proposals/tool-errors']);
  });

  it('says which version it searched in, so that the answer reads the question the same way', async () => {
    expect(await searchedIn('max length of tool names in 2025-06-18?')).toEqual([OLD]);
    expect(await searchedIn('max length of tool names?', NEW)).toEqual([NEW]);
    expect(await searchedIn('max length of tool names?')).toEqual([null]);
    // The named version had nothing: every version was searched.
    expect(await searchedIn('sampling in 2026-07-28')).toEqual([null]);
  });
});

describe('a question naming a version, on a site in two languages', () => {
  let search: SiteSearch;
  let siteId: string;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    ({ search, siteId, drop } = await seededSearch([
      {
        path: 'old/tools',
        title: 'Tools',
        chunks: ['Tool names must be at most 128 characters long.'],
        versions: [OLD],
        languages: ['en'],
      },
      {
        path: 'new/elicitation',
        title: 'Elicitation',
        chunks: ['Elicitation lets a server ask the user for more information during a tool call.'],
        versions: [NEW],
        languages: ['en'],
      },
      {
        path: 'new/fr/outils',
        title: 'Outils',
        chunks: ['Le nom d’un outil compte au plus 64 caractères.'],
        versions: [NEW],
        languages: ['fr'],
      },
    ]));
  });
  afterAll(async () => {
    await drop?.();
  });

  it('falls back to every version and every language, the question as typed, last', async () => {
    const found = await search.search(siteId, "comment fonctionne l'elicitation dans la 2025-06-18 ?", {
      limit: 5,
    });
    expect(found.map((r) => r.pagePath)).toEqual(['new/elicitation']);
    expect(found[0]?.searchedVersion).toBeNull();
  });
});
