import { type Kysely, sql } from 'kysely';
import type { Storage } from '../storage/database.ts';
import type { Database } from '../storage/schema.ts';

/**
 * Runs `work` in a write transaction that no other writer for the same organization can interleave
 * with, so a read-check-write (a balance, a count) inside it is exact.
 *
 * PostgreSQL: the organization row is locked with `SELECT … FOR UPDATE`; other organizations proceed.
 * SQLite: Kysely's driver hands out its one connection to one caller at a time, which serialises this
 * process; `BEGIN IMMEDIATE` takes the database write lock up front, which serialises other processes
 * on the same file (they wait up to the busy timeout) and avoids a deferred transaction failing when
 * it upgrades from reading to writing.
 *
 * `work` must use the handle it is given: on SQLite a query through `storage.db` would wait for the
 * connection this transaction holds.
 */
export async function withOrganizationLock<T>(
  storage: Storage,
  organizationId: string,
  work: (db: Kysely<Database>) => Promise<T>,
): Promise<T> {
  if (storage.dialect === 'postgres') {
    return storage.db.transaction().execute(async (trx) => {
      await sql`select id from organizations where id = ${organizationId} for update`.execute(trx);
      return work(trx);
    });
  }
  return storage.db.connection().execute(async (db) => {
    await sql`begin immediate`.execute(db);
    try {
      const result = await work(db);
      await sql`commit`.execute(db);
      return result;
    } catch (error) {
      await sql`rollback`.execute(db).catch(() => {});
      throw error;
    }
  });
}
