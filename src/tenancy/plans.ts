import type { Storage } from '../storage/database.ts';
import { nowIso } from '../storage/ids.ts';
import type { PlansTable } from '../storage/schema.ts';

/** The plan every organization starts on; migration 0003 creates its row. */
export const DEFAULT_PLAN_ID = 'free';

/** What the contract promises per plan unless an operator changes it. */
export const DEFAULT_ORG_REQUESTS_PER_HOUR = 10_000;
export const DEFAULT_IP_REQUESTS_PER_DAY = 10_000;
export const DEFAULT_ADMIN_REQUESTS_PER_MINUTE = 600;
export const DEFAULT_MONTHLY_CREDITS = 100_000;
export const DEFAULT_CREDIT_COST = 1;

export interface Plan {
  id: string;
  name: string;
  monthlyCredits: number;
  overageEnabled: boolean;
  /** null = no cap. */
  overageCap: number | null;
  creditCost: number;
  orgRequestsPerHour: number;
  ipRequestsPerDay: number;
  adminRequestsPerMinute: number;
}

/** Used when an organization names a plan that has no row (e.g. deleted by hand): the contract's limits. */
export const FALLBACK_PLAN: Plan = {
  id: DEFAULT_PLAN_ID,
  name: 'Free',
  monthlyCredits: DEFAULT_MONTHLY_CREDITS,
  overageEnabled: false,
  overageCap: null,
  creditCost: DEFAULT_CREDIT_COST,
  orgRequestsPerHour: DEFAULT_ORG_REQUESTS_PER_HOUR,
  ipRequestsPerDay: DEFAULT_IP_REQUESTS_PER_DAY,
  adminRequestsPerMinute: DEFAULT_ADMIN_REQUESTS_PER_MINUTE,
};

export function toPlan(row: PlansTable): Plan {
  return {
    id: row.id,
    name: row.name,
    monthlyCredits: Number(row.monthly_credits),
    overageEnabled: Number(row.overage_enabled) === 1,
    overageCap: row.overage_cap === null ? null : Number(row.overage_cap),
    creditCost: Number(row.credit_cost),
    orgRequestsPerHour: Number(row.org_requests_per_hour),
    ipRequestsPerDay: Number(row.ip_requests_per_day),
    adminRequestsPerMinute: Number(row.admin_requests_per_minute),
  };
}

export async function getPlan(storage: Pick<Storage, 'db'>, id: string): Promise<Plan | undefined> {
  const row = await storage.db.selectFrom('plans').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toPlan(row) : undefined;
}

export async function listPlans(storage: Storage): Promise<Plan[]> {
  const rows = await storage.db.selectFrom('plans').selectAll().orderBy('id').execute();
  return rows.map(toPlan);
}

/** The plan of an organization, or undefined when the organization does not exist. */
export async function getOrganizationPlan(
  storage: Pick<Storage, 'db'>,
  organizationId: string,
): Promise<Plan | undefined> {
  const row = await storage.db
    .selectFrom('organizations')
    .leftJoin('plans', 'plans.id', 'organizations.plan')
    .select([
      'organizations.plan as orgPlan',
      'plans.id',
      'plans.name',
      'plans.monthly_credits',
      'plans.overage_enabled',
      'plans.overage_cap',
      'plans.credit_cost',
      'plans.org_requests_per_hour',
      'plans.ip_requests_per_day',
      'plans.admin_requests_per_minute',
      'plans.created_at',
    ])
    .where('organizations.id', '=', organizationId)
    .executeTakeFirst();
  if (!row) return undefined;
  if (row.id === null) return { ...FALLBACK_PLAN, id: row.orgPlan };
  return toPlan(row as PlansTable);
}

export type PlanInput = Partial<Omit<Plan, 'id'>>;

/** Creates the plan or changes the given fields of it. */
export async function upsertPlan(storage: Storage, id: string, input: PlanInput): Promise<Plan> {
  const given = stripUndefined(input);
  const existing = (await getPlan(storage, id)) ?? { ...FALLBACK_PLAN, id, name: id };
  const plan: Plan = { ...existing, ...given, id };
  const row: PlansTable = {
    id,
    name: plan.name,
    monthly_credits: plan.monthlyCredits,
    overage_enabled: plan.overageEnabled ? 1 : 0,
    overage_cap: plan.overageCap,
    credit_cost: plan.creditCost,
    org_requests_per_hour: plan.orgRequestsPerHour,
    ip_requests_per_day: plan.ipRequestsPerDay,
    admin_requests_per_minute: plan.adminRequestsPerMinute,
    created_at: nowIso(),
  };
  // Only the given fields change an existing plan: two `plans set` of different fields at once each
  // wrote back the whole plan they had read, and the later undid the earlier's change.
  const changes = Object.fromEntries(
    Object.entries(PLAN_COLUMNS)
      .filter(([field]) => field in given)
      .map(([, column]) => [column, row[column]]),
  );
  await storage.db
    .insertInto('plans')
    .values(row)
    .onConflict((oc) =>
      Object.keys(changes).length === 0 ? oc.column('id').doNothing() : oc.column('id').doUpdateSet(changes),
    )
    .execute();
  return (await getPlan(storage, id)) ?? plan;
}

const PLAN_COLUMNS = {
  name: 'name',
  monthlyCredits: 'monthly_credits',
  overageEnabled: 'overage_enabled',
  overageCap: 'overage_cap',
  creditCost: 'credit_cost',
  orgRequestsPerHour: 'org_requests_per_hour',
  ipRequestsPerDay: 'ip_requests_per_day',
  adminRequestsPerMinute: 'admin_requests_per_minute',
} as const satisfies Record<keyof PlanInput, keyof PlansTable>;

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
