import net from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, dialects, type TestDatabase } from '../testing/databases.ts';
import { DatabaseUrlError, openStorage, parseDatabaseUrl } from './database.ts';
import { cannotOpenDatabase } from './database-open-problem.ts';
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

describe('opening a PostgreSQL database', () => {
  it('says when the server takes the connection and never answers, instead of waiting for TCP to give up', async () => {
    // A server whose packets are dropped, as far as the client can tell: it never says a word.
    const sockets: net.Socket[] = [];
    const silent = net.createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as net.AddressInfo;
    const url = `postgres://docent:secret@127.0.0.1:${port}/docent`;
    try {
      const started = Date.now();
      const opening = openStorage(url, { connectTimeoutMs: 300 });
      await expect(opening).rejects.toMatchObject({ code: 'ETIMEDOUT', message: 'no answer within 300 ms' });
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(await opening.catch((error: unknown) => cannotOpenDatabase(url, error))).toBe(
        'Cannot open the database (the PostgreSQL server): no answer within 300 ms',
      );
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
