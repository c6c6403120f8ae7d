import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, dialects, type TestDatabase } from '../testing/databases.ts';
import { deadInstances, INSTANCE_TIMEOUT_MS, registerInstance } from './server-instances.ts';

describe.each(dialects)('server instances on %s', (dialect) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(dialect);
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('finds instances dead by their PID on this host or by their heartbeat anywhere, never itself', async () => {
    const { storage } = database;
    const self = await registerInstance(storage);
    // A PID that was running and is not any more.
    const exited = spawnSync(process.execPath, ['-e', '0']).pid;
    const now = new Date();
    const fresh = now.toISOString();
    const old = new Date(now.getTime() - INSTANCE_TIMEOUT_MS - 1_000).toISOString();
    const row = (id: string, host: string, pid: number, heartbeat: string) => ({
      id,
      host,
      pid,
      started_at: heartbeat,
      heartbeat_at: heartbeat,
    });
    await storage.db
      .insertInto('server_instances')
      .values([
        row('exited-here', self.host, exited, fresh),
        row('previous-life', self.host, self.pid, fresh),
        row('running-here', self.host, process.ppid, fresh),
        row('elsewhere-alive', 'other-host/pid:[1]', exited, fresh),
        row('elsewhere-silent', 'other-host/pid:[1]', 1, old),
      ])
      .execute();
    const dead = await deadInstances(storage, self, { now });
    expect(dead.sort()).toEqual(['elsewhere-silent', 'exited-here', 'previous-life']);
  });
});
