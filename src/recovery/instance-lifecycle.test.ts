import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nowIso } from '../storage/ids.ts';
import { createOrganization } from '../tenancy/organizations.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../testing/databases.ts';
import { startInstanceLifecycle } from './instance-lifecycle.ts';

describe.each(dialects)('a server instance taken for dead while it lives, on %s', (dialect) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(dialect);
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('registers again instead of settling its own answers in flight as interrupted', async () => {
    const { storage } = database;
    const warnings: unknown[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => warnings.push(JSON.parse(line).msg) });
    // Timers far off: the test runs the sweep itself.
    const lifecycle = await startInstanceLifecycle(storage, logger, {
      heartbeatMs: 600_000,
      recoveryMs: 600_000,
    });
    try {
      const organization = await createOrganization(storage, { name: 'Stalled' });
      await storage.db
        .insertInto('answers_in_flight')
        .values({
          request_id: 'req_streaming',
          organization_id: organization.id,
          thread_id: 'thr_streaming',
          instance_id: lifecycle.instance.id,
          created_at: nowIso(),
          message_id: null,
          question_seq: 1,
        })
        .execute();
      // What another process's sweep does after this one's heartbeat was a minute late (a stopped
      // process, a paused VM): its row is deleted.
      await storage.db.deleteFrom('server_instances').where('id', '=', lifecycle.instance.id).execute();
      await lifecycle.recover();
      const inFlight = await storage.db.selectFrom('answers_in_flight').select('request_id').execute();
      expect(inFlight).toEqual([{ request_id: 'req_streaming' }]);
      const refunds = await storage.db.selectFrom('credit_ledger').select('kind').execute();
      expect(refunds).toEqual([]);
      const rows = await storage.db.selectFrom('server_instances').select('id').execute();
      expect(rows).toEqual([{ id: lifecycle.instance.id }]);
      expect(warnings).toContainEqual(expect.stringMatching(/taken for dead .* registered again/));
    } finally {
      await lifecycle.stop();
    }
  });
});
