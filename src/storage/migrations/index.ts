import type { Migration, MigrationProvider } from 'kysely';
import * as initial from './0001-initial.ts';
import * as threads from './0002-threads.ts';

/** The one migration set for both dialects, in order. Add new files here; never edit an applied one. */
const migrations: Record<string, Migration> = {
  '0001-initial': initial,
  '0002-threads': threads,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
