import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../errors/domain-error.ts';
import { createTenant, type Tenant } from '../limits/limits-fixtures.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../testing/databases.ts';
import {
  createIngestionJob,
  finishIngestionJob,
  getIngestionJob,
  MAX_JOB_ERROR_LENGTH,
  markIngestionStarted,
} from './jobs.ts';

describe.each(dialects)('ingestion job outcome on %s', (dialect) => {
  let database: TestDatabase;
  let tenant: Tenant;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    tenant = await createTenant(database.storage, { domain: 'jobs' });
  });
  afterAll(async () => {
    await database?.drop();
  });

  async function failWith(error: string | undefined) {
    const { storage } = database;
    const job = await createIngestionJob(storage, tenant.site.id, '/docs', null);
    await markIngestionStarted(storage, job.id);
    await finishIngestionJob(storage, job.id, {
      status: 'failure',
      counts: null,
      warnings: [],
      ...(error === undefined ? {} : { error }),
    });
    return getIngestionJob(storage, job.id);
  }

  it('ends a failed job with a message, whatever the error looked like', async () => {
    // PostgreSQL refuses U+0000 in text: the update failed and the job stayed in_progress.
    expect(await failWith('cannot parse \u0000page')).toMatchObject({
      status: 'failure',
      error: 'cannot parse page',
    });
    expect(await failWith('')).toMatchObject({
      status: 'failure',
      error: 'ingestion failed without an error message',
    });
    expect(await failWith(undefined)).toMatchObject({ status: 'failure' });
    const long = await failWith('x'.repeat(MAX_JOB_ERROR_LENGTH * 3));
    expect(long?.error).toHaveLength(MAX_JOB_ERROR_LENGTH + 1);
  });
});

describe.each(dialects)('an ingestion job for a site deleted meanwhile, on %s', (dialect) => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('is refused as not_found, not with the driver’s foreign key error (a 500 on the admin API)', async () => {
    const { storage } = database;
    const tenant = await createTenant(storage, { domain: 'deleted-meanwhile' });
    // The admin API's ingestion request found the site; a DELETE of it committed before the job's insert.
    await storage.db.deleteFrom('sites').where('id', '=', tenant.site.id).execute();
    const attempt = createIngestionJob(storage, tenant.site.id, '/docs', null);
    await expect(attempt).rejects.toBeInstanceOf(DomainError);
    await expect(attempt).rejects.toMatchObject({ kind: 'not_found' });
  });
});
