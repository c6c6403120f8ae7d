import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createIngestionJob, listIngestionJobs } from '../ingest/jobs.ts';
import { createTenant, type Tenant } from '../limits/limits-fixtures.ts';
import { openStorage } from '../storage/database.ts';
import { newId, nowIso } from '../storage/ids.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../testing/databases.ts';
import { deleteSite, getSiteByDomain } from './sites.ts';

describe.each(dialects)('deleting a site on %s', (dialect) => {
  let database: TestDatabase;
  let tenant: Tenant;
  beforeEach(async () => {
    database = await createTestDatabase(dialect);
    tenant = await createTenant(database.storage, { domain: 'going' });
  });
  afterEach(async () => {
    await database.drop();
  });

  it("is refused while a server's ingestion of it is queued or running, and done once it is over", async () => {
    const { storage } = database;
    const job = await createIngestionJob(storage, tenant.site.id, '/docs', 'ins_server');
    expect(await deleteSite(storage, tenant.organization.id, tenant.site.id)).toEqual({ ingesting: job.id });
    expect(await listIngestionJobs(storage, tenant.site.id)).toHaveLength(1);
    await storage.db
      .updateTable('ingestion_jobs')
      .set({ status: 'success' })
      .where('id', '=', job.id)
      .execute();
    // Another organization's admin cannot delete it.
    const other = await createTenant(storage, { domain: 'other' });
    expect(await deleteSite(storage, other.organization.id, tenant.site.id)).toBe('missing');
    expect(await deleteSite(storage, tenant.organization.id, tenant.site.id)).toBe('deleted');
    expect(await getSiteByDomain(storage, 'going')).toBeUndefined();
    expect(await deleteSite(storage, tenant.organization.id, tenant.site.id)).toBe('missing');
  });
});

// PostgreSQL's READ COMMITTED: SQLite has one writer at a time.
describe('deleting a site on postgres while a job insert is under way', () => {
  let database: TestDatabase;
  let tenant: Tenant;
  beforeEach(async () => {
    database = await createTestDatabase('postgres');
    tenant = await createTenant(database.storage, { domain: 'going' });
  });
  afterEach(async () => {
    await database.drop();
  });

  it('sees a job whose insert was under way when it started, instead of deleting it unseen with the site', async () => {
    // A second connection inserts the job and holds its transaction open (the row's foreign key lock).
    const other = await openStorage(database.url);
    try {
      let commit = (): void => {};
      const held = new Promise<void>((resolve) => {
        commit = resolve;
      });
      let inserted = (): void => {};
      const insertedYet = new Promise<void>((resolve) => {
        inserted = resolve;
      });
      const jobId = newId('ing');
      const insert = other.db.transaction().execute(async (trx) => {
        await trx
          .insertInto('ingestion_jobs')
          .values({
            id: jobId,
            site_id: tenant.site.id,
            status: 'queued',
            source_dir: '/docs',
            counts: '{}',
            warnings: '[]',
            error: null,
            created_at: nowIso(),
            started_at: null,
            finished_at: null,
            instance_id: 'ins_server',
          })
          .execute();
        inserted();
        await held;
      });
      await insertedYet;
      const deletion = deleteSite(database.storage, tenant.organization.id, tenant.site.id);
      // The delete waits on the row, then the job commits. Waited for, not slept on: on a loaded machine
      // a fixed pause could end before the delete reached the row, and the test pass without its lock.
      for (let i = 0; i < 250; i++) {
        const waiting = await sql<{ n: number }>`
          select count(*)::int as n from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock'`.execute(other.db);
        if ((waiting.rows[0]?.n ?? 0) > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      commit();
      await insert;
      expect(await deletion).toEqual({ ingesting: jobId });
      expect((await listIngestionJobs(database.storage, tenant.site.id)).map((j) => j.id)).toEqual([jobId]);
    } finally {
      await other.close();
    }
  });
});
