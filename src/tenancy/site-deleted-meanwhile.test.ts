/**
 * Writes that refer to a site the caller has just read, committed after a DELETE of that site (the admin
 * API's DELETE racing another request of the same organization): refused as `not_found`, a 404, never
 * the driver's foreign key error, which reached the client as a 500 (found on PostgreSQL by firing the
 * requests together).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { questionGrouperFor } from '../analytics/question-grouper.ts';
import { DomainError } from '../errors/domain-error.ts';
import { createTenant, type Tenant } from '../limits/limits-fixtures.ts';
import { setGitSource } from '../sources/git-sources.ts';
import { withWriteUnit } from '../storage/write-unit.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../testing/databases.ts';
import { createApiKey } from './api-keys.ts';

describe.each(dialects)('writes for a site deleted meanwhile, on %s', (dialect) => {
  let database: TestDatabase;
  let tenant: Tenant;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    tenant = await createTenant(database.storage, { domain: 'deleted-meanwhile' });
    await database.storage.db.deleteFrom('sites').where('id', '=', tenant.site.id).execute();
  });
  afterAll(async () => {
    await database?.drop();
  });

  const refusedAsNotFound = async (attempt: Promise<unknown>) => {
    await expect(attempt).rejects.toBeInstanceOf(DomainError);
    await expect(attempt).rejects.toMatchObject({ kind: 'not_found' });
  };

  it('an assistant key for it (POST /v1/admin/keys)', async () => {
    await refusedAsNotFound(
      createApiKey(database.storage, {
        organizationId: tenant.organization.id,
        siteId: tenant.site.id,
        kind: 'assistant',
      }),
    );
  });

  it('a git source for it (PATCH /v1/admin/sites/{domain} with git)', async () => {
    await refusedAsNotFound(
      setGitSource(database.storage, tenant.site.id, {
        url: 'https://example.com/docs.git',
        branch: null,
        subdir: '',
        pollMinutes: null,
        setBy: 'api',
      }),
    );
  });

  it("a question's group (a follow-up on one of its threads)", async () => {
    const grouper = questionGrouperFor(database.storage);
    await grouper.prepare(tenant.site.id);
    await refusedAsNotFound(
      withWriteUnit(database.storage, {}, (unit) =>
        grouper.assignWithin(unit, {
          organizationId: tenant.organization.id,
          siteId: tenant.site.id,
          question: 'How do I rotate an API key?',
        }),
      ),
    );
  });
});
