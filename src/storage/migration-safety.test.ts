import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Migrator, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { createTemporaryTestDatabase, dialects } from '../testing/databases.ts';
import { repoRoot } from '../testing/paths.ts';
import { DatabaseFromNewerVersionError, migrate, openStorage, type Storage } from './database.ts';
import { migrationProvider } from './migrations/index.ts';
import type { TemporaryDatabase } from './temporary-database.ts';

const run = promisify(execFile);

/**
 * Opens `url` as the server does (background checkpoints on) in a process of its own; at the time
 * `startAt` (epoch ms) when given, so that two processes start at the same moment.
 */
async function openInChild(url: string, startAt = 0): Promise<{ code: number; out: string }> {
  const script = `
    import { openStorage } from ${JSON.stringify(path.join(repoRoot, 'src/storage/database.ts'))};
    await new Promise((resolve) => setTimeout(resolve, Number(process.env.START_AT) - Date.now()));
    await openStorage(process.argv[1], { backgroundCheckpoints: true }).then(
      async (storage) => { console.log('opened'); await storage.close(); },
      (error) => { console.log(error.message); process.exitCode = 1; },
    );`;
  try {
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script, url],
      { cwd: repoRoot, env: { ...process.env, START_AT: String(startAt) } },
    );
    return { code: 0, out: stdout.trim() };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string };
    return { code: failed.code ?? -1, out: String(failed.stdout ?? '').trim() };
  }
}

describe.each(dialects)('migrations that fail on %s', (dialect) => {
  let temporary: TemporaryDatabase | undefined;
  let storage: Storage | undefined;
  afterEach(async () => {
    await storage?.close();
    storage = undefined;
    await temporary?.remove();
  });

  it('leave the database as it was, and run once the cause is gone', async () => {
    temporary = await createTemporaryTestDatabase(dialect);
    const db = await openStorage(temporary.url, { migrate: false });
    storage = db;
    const migrator = new Migrator({ db: db.db, provider: migrationProvider });
    expect((await migrator.migrateTo('0017-answer-places')).error).toBeUndefined();
    // 0018 rebuilds the votes' table on SQLite and ends by creating this index: taken, it fails last.
    await sql`create index message_feedback_replaced_by_idx on sites (domain)`.execute(db.db);

    await expect(migrate(db)).rejects.toThrow(/message_feedback_replaced_by_idx/);
    const tables = (await db.db.introspection.getTables()).map((t) => t.name);
    expect(tables).toContain('message_feedback');
    expect(tables).not.toContain('message_feedback_new');
    const columns = tables.includes('message_feedback')
      ? (await db.db.introspection.getTables())
          .find((t) => t.name === 'message_feedback')
          ?.columns.map((c) => c.name)
      : [];
    expect(columns).not.toContain('replaced_by');
    const applied = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(
      db.db,
    );
    expect(applied.rows.at(-1)?.name).toBe('0017-answer-places');

    await sql`drop index message_feedback_replaced_by_idx`.execute(db.db);
    await migrate(db);
    const after = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db.db);
    // Every migration ran, 0018 and those after it.
    const latest = Object.keys(await migrationProvider.getMigrations())
      .sort()
      .at(-1);
    expect(after.rows.map((row) => row.name)).toContain('0018-kept-votes');
    expect(after.rows.at(-1)?.name).toBe(latest);
  });
});

describe('a SQLite database and other processes', () => {
  let temporary: TemporaryDatabase | undefined;
  afterEach(async () => {
    await temporary?.remove();
  });

  it('refuses, with exit code 1 and a reason, a database a newer version migrated', async () => {
    temporary = await createTemporaryTestDatabase('sqlite');
    const storage = await openStorage(temporary.url);
    await sql`insert into kysely_migration (name, timestamp) values ('9999-from-the-future', '2099-01-01')`.execute(
      storage.db,
    );
    await storage.close();
    await expect(openStorage(temporary.url)).rejects.toBeInstanceOf(DatabaseFromNewerVersionError);
    // With the server's checkpointer, whose worker stopping is all that is left to wait for.
    const child = await openInChild(temporary.url);
    expect(child).toEqual({
      code: 1,
      out: expect.stringMatching(
        /^this database was migrated by a newer version of Docent \(it has migration 9999-from-the-future/,
      ),
    });
  });

  it('is migrated once when two processes start on it at the same moment', async () => {
    temporary = await createTemporaryTestDatabase('sqlite');
    const file = temporary.url.slice('sqlite:'.length);
    expect(fs.existsSync(file)).toBe(false);
    const startAt = Date.now() + 3_000;
    const started = await Promise.all([
      openInChild(temporary.url, startAt),
      openInChild(temporary.url, startAt),
    ]);
    expect(started).toEqual([
      { code: 0, out: 'opened' },
      { code: 0, out: 'opened' },
    ]);
    const storage = await openStorage(temporary.url, { migrate: false });
    const applied = await sql<{ n: number }>`select count(*) as n from kysely_migration`.execute(storage.db);
    await storage.close();
    expect(applied.rows[0]?.n).toBe(Object.keys(await migrationProvider.getMigrations()).length);
  });
});
