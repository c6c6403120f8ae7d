import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStorage } from '../storage/database.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../testing/databases.ts';
import { type SeededAnalytics, seedAnalytics } from '../testing/seed-analytics.ts';
import {
  deleteExpiredThreads,
  getRetentionDays,
  RETENTION_BATCH,
  setRetentionDays,
  startRetentionJob,
} from './retention.ts';

const DAY_MS = 86_400_000;

describe.each(dialects)('retention on %s', (dialect) => {
  let database: TestDatabase;
  let seeded: SeededAnalytics;
  const now = new Date('2025-06-30T12:00:00.000Z');

  const threadsOf = async (organizationId: string) =>
    database.storage.db
      .selectFrom('threads')
      .select(['id', 'updated_at'])
      .where('organization_id', '=', organizationId)
      .execute();

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    // More threads than one batch, so the deletion takes several.
    seeded = await seedAnalytics(database.storage, {
      organizations: 2,
      threadsPerOrganization: RETENTION_BATCH + 300,
      now,
      days: 40,
    });
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('validates and stores the setting per organization', async () => {
    const [a, b] = seeded.organizations;
    if (!a || !b) throw new Error('not seeded');
    const { storage } = database;
    expect(await getRetentionDays(storage, a.organization.id)).toBeNull();
    for (const days of [0, -1, 3651, 1.5, Number.NaN])
      await expect(setRetentionDays(storage, a.organization.id, days)).rejects.toMatchObject({
        kind: 'invalid_input',
      });
    await expect(setRetentionDays(storage, 'org_nope', 10)).rejects.toMatchObject({ kind: 'not_found' });
    await setRetentionDays(storage, a.organization.id, 3650);
    expect(await getRetentionDays(storage, a.organization.id)).toBe(3650);
    await setRetentionDays(storage, a.organization.id, null);
    expect(await getRetentionDays(storage, a.organization.id)).toBeNull();
    expect(await getRetentionDays(storage, b.organization.id)).toBeNull();
  });

  it('deletes the threads idle past the retention, with their messages, votes and emptied groups', async () => {
    const [a, b] = seeded.organizations;
    if (!a || !b) throw new Error('not seeded');
    const { storage } = database;
    const cutoff = new Date(now.getTime() - 10 * DAY_MS).toISOString();
    const before = await threadsOf(a.organization.id);
    const expired = before.filter((t) => t.updated_at < cutoff).map((t) => t.id);
    expect(expired.length).toBeGreaterThan(RETENTION_BATCH);
    const bBefore = (await threadsOf(b.organization.id)).length;

    await setRetentionDays(storage, a.organization.id, 10);
    expect(await deleteExpiredThreads(storage, now)).toBe(expired.length);

    const after = await threadsOf(a.organization.id);
    expect(after.length).toBe(before.length - expired.length);
    expect(after.every((t) => t.updated_at >= cutoff)).toBe(true);
    expect((await threadsOf(b.organization.id)).length).toBe(bBefore);
    const orphans = await storage.db
      .selectFrom('thread_messages')
      .select('id')
      .where('thread_id', 'in', expired.slice(0, 100))
      .execute();
    expect(orphans).toEqual([]);
    const votes = await storage.db
      .selectFrom('message_feedback')
      .select('message_id')
      .where('thread_id', 'in', expired.slice(0, 100))
      .execute();
    expect(votes).toEqual([]);
    // Every group left has a question still stored, and is labelled by one of them.
    const groups = await storage.db
      .selectFrom('question_groups')
      .select(['id', 'label'])
      .where('organization_id', '=', a.organization.id)
      .execute();
    for (const group of groups) {
      const questions = await storage.db
        .selectFrom('thread_messages')
        .select('content')
        .where('question_group_id', '=', group.id)
        .execute();
      expect(questions.length, group.id).toBeGreaterThan(0);
      expect(questions.map((q) => q.content)).toContain(group.label);
    }
    // Nothing left to do.
    expect(await deleteExpiredThreads(storage, now)).toBe(0);
  });

  it('runs as a background job until stopped', async () => {
    const runs: unknown[] = [];
    const logger = {
      info: (...args: unknown[]) => runs.push(args),
      error: (...args: unknown[]) => runs.push(args),
      warn: (...args: unknown[]) => runs.push(args),
    };
    const [, b] = seeded.organizations;
    if (!b) throw new Error('not seeded');
    // B's oldest threads are years past a one-day retention as the job's clock (real time) sees them.
    await setRetentionDays(database.storage, b.organization.id, 1);
    const job = startRetentionJob(database.storage, logger, { intervalMs: 50, firstRunDelayMs: 0 });
    for (let i = 0; i < 100 && runs.length === 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    job.stop();
    expect(runs[0]).toEqual([{ deleted: expect.any(Number) }, 'retention: expired conversations deleted']);
    expect(await threadsOf(b.organization.id)).toEqual([]);
  });
});

describe('retention run by two processes at once (PostgreSQL)', () => {
  it('counts only the threads it deleted, not those the other process deleted first', async () => {
    const database = await createTestDatabase('postgres');
    const other = await openStorage(database.url);
    try {
      const now = new Date('2025-06-30T12:00:00.000Z');
      const seeded = await seedAnalytics(database.storage, {
        organizations: 1,
        threadsPerOrganization: 40,
        now,
        days: 40,
      });
      const organization = seeded.organizations[0]?.organization;
      if (!organization) throw new Error('not seeded');
      await setRetentionDays(database.storage, organization.id, 10);
      const cutoff = new Date(now.getTime() - 10 * 86_400_000).toISOString();
      let run: Promise<number> | undefined;
      // The other process's run: its deletion is not committed yet when this one selects the same
      // threads, so this one's delete waits for it and then finds them gone.
      await other.db.transaction().execute(async (trx) => {
        const gone = await trx
          .deleteFrom('threads')
          .where('organization_id', '=', organization.id)
          .where('updated_at', '<', cutoff)
          .executeTakeFirst();
        expect(Number(gone.numDeletedRows)).toBeGreaterThan(0);
        run = deleteExpiredThreads(database.storage, now);
        for (let i = 0; i < 100; i++) {
          const waiting = await sql<{ n: number }>`
            select count(*)::int as n from pg_stat_activity
            where datname = current_database() and wait_event_type = 'Lock'`.execute(other.db);
          if ((waiting.rows[0]?.n ?? 0) > 0) break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      });
      // It logged "500 deleted" on the second of two servers whose first runs met, having deleted none.
      expect(await run).toBe(0);
    } finally {
      await other.close();
      await database.drop();
    }
  });

  it('keeps a thread a follow-up made active while the job was deleting it', async () => {
    const database = await createTestDatabase('postgres');
    const other = await openStorage(database.url);
    try {
      const now = new Date('2025-06-30T12:00:00.000Z');
      const seeded = await seedAnalytics(database.storage, {
        organizations: 1,
        threadsPerOrganization: 40,
        now,
        days: 40,
      });
      const organization = seeded.organizations[0]?.organization;
      if (!organization) throw new Error('not seeded');
      await setRetentionDays(database.storage, organization.id, 10);
      const cutoff = new Date(now.getTime() - 10 * 86_400_000).toISOString();
      const expired = await database.storage.db
        .selectFrom('threads')
        .select('id')
        .where('organization_id', '=', organization.id)
        .where('updated_at', '<', cutoff)
        .orderBy('updated_at')
        .execute();
      const revived = expired[0]?.id;
      if (revived === undefined) throw new Error('no expired thread');
      let run: Promise<number> | undefined;
      // A reader's follow-up on an idle thread (appendQuestionWithin touches it): not committed yet when
      // the job selects the expired threads, committed while the job's delete waits on its row.
      await other.db.transaction().execute(async (trx) => {
        await trx
          .updateTable('threads')
          .set({ updated_at: now.toISOString() })
          .where('id', '=', revived)
          .execute();
        run = deleteExpiredThreads(database.storage, now);
        for (let i = 0; i < 100; i++) {
          const waiting = await sql<{ n: number }>`
            select count(*)::int as n from pg_stat_activity
            where datname = current_database() and wait_event_type = 'Lock'`.execute(other.db);
          if ((waiting.rows[0]?.n ?? 0) > 0) break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      });
      expect(await run).toBe(expired.length - 1);
      const left = await database.storage.db
        .selectFrom('threads')
        .select('id')
        .where('organization_id', '=', organization.id)
        .where('updated_at', '<', cutoff)
        .execute();
      expect(left).toEqual([]);
      // The reader's question was asked now: its thread is not idle, and its answer has somewhere to go.
      expect(
        await database.storage.db.selectFrom('threads').select('id').where('id', '=', revived).execute(),
      ).toEqual([{ id: revived }]);
    } finally {
      await other.close();
      await database.drop();
    }
  });
});
