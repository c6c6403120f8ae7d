import net from 'node:net';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { startInstanceLifecycle } from '../recovery/instance-lifecycle.ts';
import { openStorage, ping, type Storage } from '../storage/database.ts';
import { databaseUnavailable } from '../storage/database-open-problem.ts';
import { OutageLog } from '../storage/outage-log.ts';
import { createTestDatabase, type TestDatabase } from '../testing/databases.ts';
import { type LogLine, loggerInto } from '../testing/log-lines.ts';
import { createTestApp } from '../testing/test-app.ts';

/** A TCP relay to PostgreSQL that can be cut, as a database server that goes away would be. */
async function relayTo(port: number) {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(port, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => sockets.delete(socket));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    cut: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

describe('a database that goes away', () => {
  let database: TestDatabase | undefined;
  let relayed: Storage | undefined;
  afterEach(async () => {
    await relayed?.close().catch(() => {});
    await database?.drop();
    relayed = undefined;
    database = undefined;
  });

  it('answers 503 with Retry-After and a JSON error body, not 500', async () => {
    database = await createTestDatabase('postgres');
    const url = new URL(database.url);
    const relay = await relayTo(Number(url.port || 5432));
    url.port = String(relay.port);
    relayed = await openStorage(url.toString());
    const app = createTestApp(relayed);
    const ask = () =>
      app.request('/v1/admin/sites', { headers: { Authorization: `Bearer svc_${'x'.repeat(40)}` } });
    // While the database answers, an unknown key is refused.
    expect((await ask()).status).toBe(401);
    await relay.cut();
    const response = await ask();
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('5');
    const body = (await response.json()) as { error: { code: string; message: string; requestId: string } };
    expect(body.error.code).toBe('unavailable');
    expect(body.error.message).toMatch(/database is unavailable/);
    expect(body.error.requestId).toMatch(/\S/);
  });
  it('says so once in the log, not with a stack per request or per readiness probe', async () => {
    database = await createTestDatabase('postgres');
    const url = new URL(database.url);
    const relay = await relayTo(Number(url.port || 5432));
    url.port = String(relay.port);
    relayed = await openStorage(url.toString());
    const lines: LogLine[] = [];
    const app = createTestApp(relayed, { logger: loggerInto(lines) });
    await relay.cut();
    for (let i = 0; i < 3; i++) {
      const response = await app.request('/v1/admin/sites', {
        headers: { Authorization: `Bearer svc_${'x'.repeat(40)}` },
      });
      expect(response.status).toBe(503);
      expect((await app.request('/readyz')).status).toBe(503);
    }
    const errors = lines.filter((l) => l.level >= 40);
    expect(errors.map((l) => l.msg)).toEqual(['database unreachable']);
  });
  it("tells the background jobs' failures to the same outage: one line, not a stack per heartbeat", async () => {
    database = await createTestDatabase('postgres');
    const url = new URL(database.url);
    const relay = await relayTo(Number(url.port || 5432));
    url.port = String(relay.port);
    const storage = await openStorage(url.toString());
    relayed = storage;
    const lines: LogLine[] = [];
    const logger = loggerInto(lines);
    const outage = new OutageLog('database', () => ping(storage), logger, { probeMs: 60_000 });
    const lifecycle = await startInstanceLifecycle(storage, logger, {
      heartbeatMs: 20,
      recoveryMs: 20,
      outage,
    });
    try {
      const app = createTestApp(storage, { logger, databaseOutage: outage });
      await relay.cut();
      // Heartbeats and recovery sweeps every 20 ms: a dozen each, and requests between them.
      for (let i = 0; i < 3; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect((await app.request('/readyz')).status).toBe(503);
      }
      const errors = lines.filter((l) => l.level >= 40);
      expect(errors.map((l) => l.msg)).toEqual(['database unreachable']);
    } finally {
      await lifecycle.stop().catch(() => {});
      outage.close();
    }
  });

  it('knows a transaction whose connection was cut between two of its statements', async () => {
    database = await createTestDatabase('postgres');
    const url = new URL(database.url);
    const relay = await relayTo(Number(url.port || 5432));
    url.port = String(relay.port);
    relayed = await openStorage(url.toString());
    const storage = relayed;
    // The second statement (or the rollback after it) meets a client pg has marked not queryable.
    const failure = await storage.db
      .transaction()
      .execute(async (trx) => {
        await sql`select 1`.execute(trx);
        await relay.cut();
        await new Promise((resolve) => setTimeout(resolve, 50));
        await sql`select 2`.execute(trx);
      })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(databaseUnavailable(failure), String(failure)).toBe(true);
  });
});

describe('databaseUnavailable', () => {
  const coded = (code: string) => Object.assign(new Error('x'), { code });
  it('knows a database out of reach or busy from a failure of the request itself', () => {
    for (const code of ['ECONNREFUSED', 'ETIMEDOUT', '57P01', '08006', '53300', 'SQLITE_BUSY', 'SQLITE_FULL'])
      expect(databaseUnavailable(coded(code)), code).toBe(true);
    expect(databaseUnavailable(new Error('timeout exceeded when trying to connect'))).toBe(true);
    expect(databaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    // A constraint violation, bad SQL, or a bug: internal errors still.
    for (const code of [
      '23505',
      '42601',
      'SQLITE_CONSTRAINT_UNIQUE',
      'SQLITE_ERROR',
      '08P01',
      'SQLITE_LOCKED',
    ])
      expect(databaseUnavailable(coded(code)), code).toBe(false);
    expect(databaseUnavailable(new TypeError('x is undefined'))).toBe(false);
    expect(databaseUnavailable('ECONNREFUSED')).toBe(false);
  });
});
