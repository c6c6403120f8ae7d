import { type DialectName, openStorage, type Storage } from '../storage/database.ts';
import { createTemporaryDatabase, type TemporaryDatabase } from '../storage/temporary-database.ts';
import { testPostgresUrl } from './services.ts';

export const dialects: DialectName[] = ['sqlite', 'postgres'];

export interface TestDatabase {
  url: string;
  storage: Storage;
  /** Closes the storage and removes the database. */
  drop(): Promise<void>;
}

/**
 * A fresh, migrated database of the given dialect. PostgreSQL tests always run: with no server
 * configured the global setup starts one (test-services.ts).
 */
export async function createTestDatabase(dialect: DialectName): Promise<TestDatabase> {
  const temporary = await createTemporaryTestDatabase(dialect);
  const storage = await openStorage(temporary.url);
  return {
    url: temporary.url,
    storage,
    drop: async () => {
      await storage.close();
      await temporary.remove();
    },
  };
}

/** An empty (not migrated) database, for tests that start servers or CLIs on it. */
export function createTemporaryTestDatabase(dialect: DialectName): Promise<TemporaryDatabase> {
  return createTemporaryDatabase(dialect, testPostgresUrl());
}
