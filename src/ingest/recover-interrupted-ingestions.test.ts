import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerInstance } from '../storage/server-instances.ts';
import { createOrganization } from '../tenancy/organizations.ts';
import { createSite } from '../tenancy/sites.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../testing/databases.ts';
import { createIngestionJob, getIngestionJob, markIngestionStarted } from './jobs.ts';
import {
  INTERRUPTED_INGESTION_ERROR,
  recoverInterruptedIngestions,
} from './recover-interrupted-ingestions.ts';

describe.each(dialects)('recoverInterruptedIngestions on %s', (dialect) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(dialect);
  });
  afterAll(async () => {
    await database?.drop();
  });

  it("fails the unfinished jobs of dead or vanished instances, and nobody else's", async () => {
    const { storage } = database;
    const org = await createOrganization(storage, { name: 'jobs' });
    const site = await createSite(storage, { organizationId: org.id, domain: `jobs-${dialect}` });
    const live = await registerInstance(storage);
    const dead = await registerInstance(storage);
    const job = async (instanceId: string | null, started: boolean) => {
      const created = await createIngestionJob(storage, site.id, '/docs', instanceId);
      if (started) await markIngestionStarted(storage, created.id);
      return created.id;
    };
    const running = {
      live: await job(live.id, true),
      dead: await job(dead.id, true),
      deadQueued: await job(dead.id, false),
      vanished: await job('ins_gone', true),
      unowned: await job(null, true),
    };

    expect(await recoverInterruptedIngestions(storage, [dead.id])).toBe(3);
    const status = async (id: string) => (await getIngestionJob(storage, id))?.status;
    expect(await status(running.live)).toBe('in_progress');
    expect(await status(running.unowned)).toBe('in_progress');
    for (const id of [running.dead, running.deadQueued, running.vanished]) {
      const failed = await getIngestionJob(storage, id);
      expect(failed).toMatchObject({ status: 'failure', error: INTERRUPTED_INGESTION_ERROR });
      expect(failed?.finishedAt).toBeTruthy();
    }
    // Settled once: a second pass finds nothing.
    expect(await recoverInterruptedIngestions(storage, [dead.id])).toBe(0);
  });
});
