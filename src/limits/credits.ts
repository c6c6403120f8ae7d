import type { Kysely } from 'kysely';
import { DocentError } from '../http/errors.ts';
import type { Storage } from '../storage/database.ts';
import { newId } from '../storage/ids.ts';
import type { Database } from '../storage/schema.ts';
import { FALLBACK_PLAN, getOrganizationPlan, type Plan } from '../tenancy/plans.ts';
import { withOrganizationLock } from './organization-lock.ts';

/** `YYYY-MM` (UTC): credits are included per calendar month. */
export function periodOf(date: Date): string {
  return date.toISOString().slice(0, 7);
}

export function dayOf(date: Date): string {
  return date.toISOString().slice(0, 10);
}

function nextPeriodStart(date: Date): string {
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1)).toISOString();
}

export interface Charge {
  requestId: string;
  organizationId: string;
  credits: number;
  overage: number;
}

export interface Balance {
  period: string;
  included: number;
  used: number;
  overage: number;
  /** Included credits left this period. */
  remaining: number;
}

async function readBalance(db: Kysely<Database>, organizationId: string, period: string) {
  return db
    .selectFrom('credit_balances')
    .select(['used', 'overage'])
    .where('organization_id', '=', organizationId)
    .where('period', '=', period)
    .executeTakeFirst();
}

/**
 * Charges one request, exactly once: the balance check, the ledger entry and the running total are
 * one transaction under the organization lock. A second call with the same request id returns the
 * first charge. Throws 402 `credits_exhausted` when the plan allows no more.
 */
export async function chargeCredits(
  storage: Storage,
  input: {
    organizationId: string;
    siteId: string | null;
    requestId: string;
    now?: Date;
    /** The organization's plan when the caller has just read it (the assistant gate has, for its rate limits). */
    plan?: Plan;
  },
): Promise<Charge> {
  const now = input.now ?? new Date();
  const period = periodOf(now);
  return withOrganizationLock(storage, input.organizationId, async (db) => {
    const previous = await db
      .selectFrom('credit_ledger')
      .select(['credits', 'overage'])
      .where('request_id', '=', input.requestId)
      .where('kind', '=', 'charge')
      .executeTakeFirst();
    if (previous) {
      return { requestId: input.requestId, organizationId: input.organizationId, ...numbers(previous) };
    }
    // Exactness rests on reading the balance under the lock; the plan is configuration.
    const plan = input.plan ?? (await getOrganizationPlan({ db }, input.organizationId)) ?? FALLBACK_PLAN;
    const balance = await readBalance(db, input.organizationId, period);
    const used = Number(balance?.used ?? 0);
    const overageUsed = Number(balance?.overage ?? 0);
    const cost = plan.creditCost;
    const includedLeft = Math.max(0, plan.monthlyCredits - (used - overageUsed));
    const overage = Math.max(0, cost - includedLeft);
    if (overage > 0) refuseOverage(plan, overageUsed, overage, now);

    await db
      .insertInto('credit_ledger')
      .values({
        id: newId('cre'),
        organization_id: input.organizationId,
        site_id: input.siteId,
        request_id: input.requestId,
        kind: 'charge',
        credits: cost,
        overage,
        period,
        day: dayOf(now),
        created_at: now.toISOString(),
      })
      .execute();
    await writeBalance(
      db,
      input.organizationId,
      period,
      balance !== undefined,
      used + cost,
      overageUsed + overage,
    );
    return { requestId: input.requestId, organizationId: input.organizationId, credits: cost, overage };
  });
}

function refuseOverage(plan: Plan, overageUsed: number, overage: number, now: Date): void {
  const resets = nextPeriodStart(now);
  if (!plan.overageEnabled) {
    throw new DocentError(
      'credits_exhausted',
      `This organization has used its ${plan.monthlyCredits} included credits for the month and overage is off; credits renew at ${resets}`,
    );
  }
  if (plan.overageCap !== null && overageUsed + overage > plan.overageCap) {
    throw new DocentError(
      'credits_exhausted',
      `This organization has reached its overage cap of ${plan.overageCap} credits for the month; credits renew at ${resets}`,
    );
  }
}

async function writeBalance(
  db: Kysely<Database>,
  organizationId: string,
  period: string,
  exists: boolean,
  used: number,
  overage: number,
): Promise<void> {
  // Safe as read-then-write: the caller holds the organization lock.
  if (exists) {
    await db
      .updateTable('credit_balances')
      .set({ used, overage })
      .where('organization_id', '=', organizationId)
      .where('period', '=', period)
      .execute();
  } else {
    await db
      .insertInto('credit_balances')
      .values({ organization_id: organizationId, period, used, overage })
      .execute();
  }
}

/**
 * Gives back a request's charge (a refund entry keyed by the same request id). Idempotent, and a
 * no-op for a request that was never charged. Returns whether a refund was written now.
 */
export async function refundCredits(
  storage: Storage,
  input: { organizationId: string; requestId: string; now?: Date },
): Promise<boolean> {
  const now = input.now ?? new Date();
  return withOrganizationLock(storage, input.organizationId, async (db) => {
    const entries = await db
      .selectFrom('credit_ledger')
      .select(['kind', 'credits', 'overage', 'period', 'day', 'site_id'])
      .where('request_id', '=', input.requestId)
      .where('organization_id', '=', input.organizationId)
      .execute();
    const charge = entries.find((e) => e.kind === 'charge');
    if (!charge || entries.some((e) => e.kind === 'refund')) return false;
    const { credits, overage } = numbers(charge);
    await db
      .insertInto('credit_ledger')
      .values({
        id: newId('cre'),
        organization_id: input.organizationId,
        site_id: charge.site_id,
        request_id: input.requestId,
        kind: 'refund',
        credits: -credits,
        overage: -overage,
        // The refund counts against the month and day it was charged on, so daily figures net out.
        period: charge.period,
        day: charge.day,
        created_at: now.toISOString(),
      })
      .execute();
    const balance = await readBalance(db, input.organizationId, charge.period);
    await writeBalance(
      db,
      input.organizationId,
      charge.period,
      balance !== undefined,
      Number(balance?.used ?? 0) - credits,
      Number(balance?.overage ?? 0) - overage,
    );
    return true;
  });
}

function numbers(row: { credits: number; overage: number }): { credits: number; overage: number } {
  return { credits: Number(row.credits), overage: Number(row.overage) };
}

export async function getBalance(
  storage: Storage,
  organizationId: string,
  now = new Date(),
): Promise<Balance> {
  const period = periodOf(now);
  const plan = (await getOrganizationPlan(storage, organizationId)) ?? FALLBACK_PLAN;
  const row = await readBalance(storage.db, organizationId, period);
  const used = Number(row?.used ?? 0);
  const overage = Number(row?.overage ?? 0);
  return {
    period,
    included: plan.monthlyCredits,
    used,
    overage,
    remaining: Math.max(0, plan.monthlyCredits - (used - overage)),
  };
}

export interface DailyUsage {
  day: string;
  /** Answered requests: charges less refunds. */
  requests: number;
  credits: number;
  overage: number;
}

/** Net usage per UTC day in `[from, to]` (inclusive `YYYY-MM-DD`); days without usage are left out. */
export async function dailyUsage(
  storage: Storage,
  organizationId: string,
  range: { from: string; to: string },
): Promise<DailyUsage[]> {
  const rows = await storage.db
    .selectFrom('credit_ledger')
    .select((eb) => [
      'day',
      eb.fn.sum<number>(eb.case().when('kind', '=', 'charge').then(1).else(-1).end()).as('requests'),
      eb.fn.sum<number>('credits').as('credits'),
      eb.fn.sum<number>('overage').as('overage'),
    ])
    .where('organization_id', '=', organizationId)
    .where('day', '>=', range.from)
    .where('day', '<=', range.to)
    .groupBy('day')
    .orderBy('day')
    .execute();
  return rows.map((row) => ({
    day: row.day,
    requests: Number(row.requests),
    credits: Number(row.credits),
    overage: Number(row.overage),
  }));
}
