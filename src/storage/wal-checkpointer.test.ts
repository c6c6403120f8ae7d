import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { openStorage, type Storage } from './database.ts';
import { createTemporaryDatabase, type TemporaryDatabase } from './temporary-database.ts';
import { startWalCheckpointer, WAL_CHECKPOINT_INTERVAL_MS } from './wal-checkpointer.ts';

describe('background WAL checkpoints', () => {
  let temporary: TemporaryDatabase | undefined;
  let storage: Storage | undefined;
  afterEach(async () => {
    await storage?.close();
    storage = undefined;
    await temporary?.remove();
    temporary = undefined;
  });

  /** Writes about 2 MB in one commit: fewer pages than SQLite's own checkpoint threshold (1,000). */
  const write = (raw: NonNullable<Storage['sqlite']>): void => {
    raw.exec('create table filler (id integer primary key, body text not null)');
    const insert = raw.prepare('insert into filler (body) values (?)');
    raw.transaction(() => {
      for (let i = 0; i < 500; i++) insert.run('x'.repeat(4_000));
    })();
  };

  it('copies committed pages into the database file from the worker, not in the commit', async () => {
    temporary = await createTemporaryDatabase('sqlite');
    storage = await openStorage(temporary.url, { backgroundCheckpoints: true });
    const raw = storage.sqlite;
    if (raw === undefined) throw new Error('expected SQLite');
    expect(raw.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
    const file = temporary.url.slice('sqlite:'.length);
    write(raw);
    const before = fs.statSync(file).size;
    // The commit left its pages in the log; the worker's next checkpoint moves them over.
    expect(before).toBeLessThan(1_000_000);
    const deadline = Date.now() + WAL_CHECKPOINT_INTERVAL_MS * 10;
    while (fs.statSync(file).size < 2_000_000 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fs.statSync(file).size).toBeGreaterThan(2_000_000);
    expect(raw.prepare('select count(*) as n from filler').get()).toEqual({ n: 500 });
  });

  it('leaves checkpoints to SQLite when not asked for (CLI, tools)', async () => {
    temporary = await createTemporaryDatabase('sqlite');
    storage = await openStorage(temporary.url);
    expect(storage.sqlite?.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
  });

  it('reports a worker that cannot work, so that commits checkpoint again', async () => {
    const failure = await new Promise<unknown>((resolve) => {
      startWalCheckpointer('/nonexistent-dir/docent.db', resolve);
    });
    expect(failure).toBeInstanceOf(Error);
  });
});
