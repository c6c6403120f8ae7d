import { CompiledQuery, type KyselyPlugin, type RootOperationNode } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Storage } from '../storage/database.ts';
import { createTestDatabase, type TestDatabase } from '../testing/databases.ts';
import { seedAnalytics } from '../testing/seed-analytics.ts';
import { periodToRange } from './analytics-filter.ts';
import { analyticsOverview } from './overview.ts';
import { pageStats } from './pages.ts';

/**
 * The overview and the page statistics read each answer's votes by index. Summed once per organization
 * and joined, the votes had no index on SQLite: every question of the range scanned all of them, and a
 * busy site's 30-day overview took seconds (a year, 22 s). Checked by the query plan, not a timing.
 */
describe('votes on answers, on sqlite', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase('sqlite');
  });
  afterAll(async () => {
    await db?.drop();
  });

  /** Runs `use` over `storage`, and returns the plan of each statement it sent that reads votes. */
  async function votePlans(
    storage: Storage,
    use: (recording: Storage) => Promise<unknown>,
  ): Promise<string[][]> {
    const sent: RootOperationNode[] = [];
    const recorder: KyselyPlugin = {
      transformQuery: (args) => {
        sent.push(args.node);
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    await use({ ...storage, db: storage.db.withPlugin(recorder) });
    const plans: string[][] = [];
    for (const node of sent) {
      const compiled = storage.db.getExecutor().compileQuery(node, { queryId: 'plan' });
      if (!compiled.sql.includes('message_feedback')) continue;
      const plan = await storage.db.executeQuery<{ detail: string }>(
        CompiledQuery.raw(`explain query plan ${compiled.sql}`, [...compiled.parameters]),
      );
      plans.push(plan.rows.map((row) => row.detail));
    }
    return plans;
  }

  it('looks each answer’s votes up instead of scanning them all per question', async () => {
    const now = new Date();
    const seeded = await seedAnalytics(db.storage, { organizations: 1, threadsPerOrganization: 300, now });
    const organizationId = seeded.organizations[0]?.organization.id ?? '';
    const range = periodToRange('30d', now);
    const plans = await votePlans(db.storage, async (storage) => {
      const overview = await analyticsOverview(storage, organizationId, range);
      expect(overview.feedbackUp + overview.feedbackDown).toBeGreaterThan(0);
      await pageStats(storage, organizationId, range);
    });
    expect(plans).toHaveLength(2);
    for (const plan of plans) {
      expect(plan.join('\n')).toMatch(/SEARCH f USING INDEX/);
      expect(plan.filter((line) => /^SCAN/.test(line))).toEqual([]);
    }
  });
});
