import type { Storage } from '../../src/storage/database.ts';
import { setOrganizationPlan } from '../../src/tenancy/organizations.ts';
import { upsertPlan } from '../../src/tenancy/plans.ts';

/** The plan benchmark organizations are put on: limits far above what a run sends. */
const BENCH_PLAN = 'bench-unlimited';

/**
 * The default plan's 10,000 requests per hour (and per IP per day) are less than one load run sends:
 * a benchmark measures the work of answering, not 429s, so its organization is on a plan without limits.
 */
export async function putOnUnlimitedPlan(storage: Storage, organizationId: string): Promise<void> {
  await upsertPlan(storage, BENCH_PLAN, {
    name: 'benchmark',
    monthlyCredits: 1_000_000_000,
    orgRequestsPerHour: 1_000_000_000,
    ipRequestsPerDay: 1_000_000_000,
  });
  await setOrganizationPlan(storage, organizationId, BENCH_PLAN);
}
