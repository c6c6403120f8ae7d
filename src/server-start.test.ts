import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';
import { ServerStartError, startServer } from './server.ts';
import { openStorage } from './storage/database.ts';

const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'docent-server-start-'));
afterAll(() => fs.rmSync(folder, { recursive: true, force: true }));

/** A port on which nothing listens: one just let go. */
async function closedPort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

async function startFailure(env: Record<string, string>): Promise<ServerStartError> {
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DOCENT_SEED_DEMO: 'false',
    DOCENT_DEMO_PAGE: 'false',
    ...env,
  });
  const started = await startServer(config, { logger: pino({ level: 'silent' }) }).then(
    async (server) => {
      await server.close();
      return null;
    },
    (error: unknown) => error,
  );
  if (!(started instanceof ServerStartError)) throw new Error(`not a ServerStartError: ${String(started)}`);
  return started;
}

// main.ts prints a ServerStartError's message in one line; anything else went out with its stack.
describe('a server whose database or Redis cannot be reached', () => {
  it('says which database in one line: a PostgreSQL server that refuses the connection', async () => {
    const error = await startFailure({
      DATABASE_URL: `postgres://docent@127.0.0.1:${await closedPort()}/docent`,
    });
    expect(error.message).toMatch(/^Cannot open the database \(the PostgreSQL server\): .*ECONNREFUSED/);
    expect(error.message).not.toContain('\n');
  });

  it('says which database in one line: a SQLite file that cannot be opened (a folder)', async () => {
    const error = await startFailure({ DATABASE_URL: `sqlite:${folder}` });
    expect(error.message).toBe(`Cannot open the database (${folder}): unable to open database file`);
  });

  it('says in one line that a newer Docent migrated the database, and leaves it as it was', async () => {
    const url = `sqlite:${path.join(folder, 'newer.db')}`;
    const storage = await openStorage(url);
    await sql`insert into kysely_migration (name, timestamp) values ('9999-from-the-future', '2099-01-01')`.execute(
      storage.db,
    );
    await storage.close();
    const error = await startFailure({ DATABASE_URL: url });
    expect(error.message).toMatch(
      /^this database was migrated by a newer version of Docent \(it has migration 9999-from-the-future,/,
    );
  });

  it('says which Redis in one line, without its password', async () => {
    const error = await startFailure({
      DATABASE_URL: `sqlite:${path.join(folder, 'docent.db')}`,
      REDIS_URL: `redis://:secret@127.0.0.1:${await closedPort()}`,
    });
    expect(error.message).toMatch(/^Cannot reach Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:\d+: /);
    expect(error.message).not.toContain('secret');
  });
});
