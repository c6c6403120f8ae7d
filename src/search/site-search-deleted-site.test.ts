import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../errors/domain-error.ts';
import { createTenant } from '../limits/limits-fixtures.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../testing/databases.ts';
import { seedSite } from '../testing/seed-site.ts';
import { SiteSearch } from './site-search.ts';

/**
 * A search of a site deleted while the request was handled (the agent API's search and context, an
 * answer's retrieval, with the site read a moment before): `not_found`, a 404, not a bare Error, which
 * reached the client as a 500 (found on PostgreSQL by firing the requests together with the DELETE).
 */
describe.each(dialects)('searching a site deleted meanwhile, on %s', (dialect) => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
  });
  afterAll(async () => {
    await database?.drop();
  });

  const refusedAsNotFound = async (attempt: Promise<unknown>) => {
    await expect(attempt).rejects.toBeInstanceOf(DomainError);
    await expect(attempt).rejects.toMatchObject({ kind: 'not_found' });
  };

  it('is not_found when the site is gone before the search reads it', async () => {
    const tenant = await createTenant(database.storage, { domain: 'gone-before' });
    await database.storage.db.deleteFrom('sites').where('id', '=', tenant.site.id).execute();
    await refusedAsNotFound(new SiteSearch(database.storage).search(tenant.site.id, 'rotate', { limit: 5 }));
  });

  it('is not_found when the site goes while its index is being loaded', async () => {
    const tenant = await createTenant(database.storage, { domain: 'gone-during' });
    await seedSite(database.storage, tenant.site.id, [
      { path: 'keys', title: 'Keys', chunks: ['Rotate an API key with the rotate command.'] },
    ]);
    const search = new SiteSearch(database.storage);
    // The site's row is read first, then (no index stored yet) its chunks to build one: the DELETE
    // commits in between.
    const searching = search.search(tenant.site.id, 'rotate', { limit: 5 });
    await database.storage.db.deleteFrom('sites').where('id', '=', tenant.site.id).execute();
    await refusedAsNotFound(searching);
  });
});
