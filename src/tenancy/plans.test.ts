import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestDatabase, dialects, type TestDatabase } from '../testing/databases.ts';
import { getPlan, upsertPlan } from './plans.ts';

describe.each(dialects)('plans on %s', (dialect) => {
  let database: TestDatabase;
  beforeEach(async () => {
    database = await createTestDatabase(dialect);
  });
  afterEach(async () => {
    await database.drop();
  });

  it('changes only the given fields, so two changes of different fields at once both stay', async () => {
    const { storage } = database;
    await upsertPlan(storage, 'team', { monthlyCredits: 100, orgRequestsPerHour: 50 });
    // Two `plans set` at once: each read the plan before the other wrote.
    await Promise.all([
      upsertPlan(storage, 'team', { monthlyCredits: 500 }),
      upsertPlan(storage, 'team', { orgRequestsPerHour: 70 }),
    ]);
    expect(await getPlan(storage, 'team')).toMatchObject({ monthlyCredits: 500, orgRequestsPerHour: 70 });
    expect(await upsertPlan(storage, 'team', {})).toMatchObject({
      monthlyCredits: 500,
      orgRequestsPerHour: 70,
    });
  });
});
