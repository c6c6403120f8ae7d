import type { Kysely } from 'kysely';
import type { Storage } from '../storage/database.ts';
import type { Database } from '../storage/schema.ts';
import { withWriteUnit } from '../storage/write-unit.ts';

/**
 * Runs `work` in a write transaction that no other writer for the same organization can interleave
 * with, so a read-check-write (a balance, a count) inside it is exact (how: storage/write-unit.ts).
 *
 * `work` must use the handle it is given: on SQLite a query through `storage.db` would wait for the
 * connection this transaction holds.
 */
export async function withOrganizationLock<T>(
  storage: Storage,
  organizationId: string,
  work: (db: Kysely<Database>) => Promise<T>,
): Promise<T> {
  return withWriteUnit(storage, { lockOrganizationId: organizationId }, (unit) => work(unit.db));
}
