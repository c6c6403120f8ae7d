import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, dialects, type TestDatabase } from '../testing/databases.ts';
import { DatabaseUrlError, openStorage, parseDatabaseUrl } from './database.ts';
import { migrationProvider } from './migrations/index.ts';

describe('parseDatabaseUrl', () => {
  it('accepts sqlite paths and postgres URLs', () => {
    expect(parseDatabaseUrl('sqlite:.docent/docent.db')).toEqual({
      dialect: 'sqlite',
      file: '.docent/docent.db',
    });
    expect(parseDatabaseUrl('sqlite:///tmp/x.db')).toEqual({ dialect: 'sqlite', file: '/tmp/x.db' });
    expect(parseDatabaseUrl('sqlite::memory:')).toEqual({ dialect: 'sqlite', file: ':memory:' });
    expect(parseDatabaseUrl('postgres://u@h:5432/db')).toEqual({
      dialect: 'postgres',
      url: 'postgres://u@h:5432/db',
    });
    expect(parseDatabaseUrl('postgresql://h/db').dialect).toBe('postgres');
  });

  it('rejects anything else without echoing a password', () => {
    expect(() => parseDatabaseUrl('mysql://root:secret@h/db')).toThrow(DatabaseUrlError);
    expect(() => parseDatabaseUrl('mysql://root:secret@h/db')).toThrow(/root:\*\*\*@/);
    expect(() => parseDatabaseUrl('sqlite:')).toThrow(DatabaseUrlError);
  });
});

describe.each(dialects)('migrations on %s', (dialect) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(dialect);
  });
  afterAll(async () => {
    await database.drop();
  });

  it('creates every table', async () => {
    const tables = (await database.storage.db.introspection.getTables()).map((t) => t.name).sort();
    expect(tables).toEqual(
      expect.arrayContaining(['api_keys', 'chunks', 'ingestion_jobs', 'organizations', 'pages', 'sites']),
    );
  });

  it('is idempotent when the same database is opened again', async () => {
    const again = await openStorage(database.url);
    const rows = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(
      again.db,
    );
    expect(rows.rows.map((r) => r.name)).toEqual(Object.keys(await migrationProvider.getMigrations()));
    expect(rows.rows[0]?.name).toBe('0001-initial');
    await again.close();
  });
});
