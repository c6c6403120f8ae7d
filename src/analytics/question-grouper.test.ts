import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SiteSearch } from '../search/site-search.ts';
import { withWriteUnit } from '../storage/write-unit.ts';
import { createOrganization } from '../tenancy/organizations.ts';
import { createSite } from '../tenancy/sites.ts';
import { createTestDatabase, type TestDatabase } from '../testing/databases.ts';
import { seedSite } from '../testing/seed-site.ts';
import { QuestionGrouper } from './question-grouper.ts';

/** The grouper over storage, with the site's concept model read from its stored search index. */
describe('question grouper with concepts', () => {
  let database: TestDatabase;
  let organizationId: string;
  let siteId: string;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    const org = await createOrganization(database.storage, { name: 'grouper' });
    organizationId = org.id;
    siteId = (await createSite(database.storage, { organizationId, domain: 'grouper' })).id;
    await seedSite(database.storage, siteId, [
      {
        path: 'keys',
        title: 'Keys',
        chunks: ['Regenerate the assistant secret: rotate the key, then revoke the old secret.'],
      },
      { path: 'operations', title: 'Operations', chunks: ['The healthz endpoint answers liveness probes.'] },
      {
        path: 'widget',
        title: 'Widget',
        chunks: ['Change the widget colors and fonts with theme attributes.'],
      },
    ]);
  });

  afterAll(async () => {
    await database.drop();
  });

  const ask = (grouper: QuestionGrouper, question: string): Promise<string | null> =>
    withWriteUnit(database.storage, {}, (unit) =>
      grouper.assignWithin(unit, { organizationId, siteId, question }),
    );

  it('groups by words alone until the site has a stored index, then by its docs too', async () => {
    const grouper = new QuestionGrouper(database.storage, { concepts: true });
    await grouper.prepare(siteId);
    // No search has stored the site's index yet: these two share no word.
    const first = await ask(grouper, 'regenerate my secret');
    expect(await ask(grouper, 'rotate the key')).not.toBe(first);

    // A search stores the index; a grouper loading the site now builds the model from it.
    await new SiteSearch(database.storage).search(siteId, 'key', { limit: 1 });
    const later = new QuestionGrouper(database.storage, { concepts: true });
    await later.prepare(siteId);
    // Words the docs use together, none shared: one group now.
    const probe = await ask(later, 'liveness probe');
    expect(await ask(later, 'healthz')).toBe(probe);
    expect(await ask(later, 'widget colors')).not.toBe(probe);
    // Without the option, words alone.
    const words = new QuestionGrouper(database.storage);
    await words.prepare(siteId);
    expect(await ask(words, 'probe liveness')).toBe(probe);
    expect(await ask(words, 'healthz probes')).not.toBe(await ask(words, 'liveness'));
  });
});
