import type { Kysely } from 'kysely';
import { DomainError } from '../errors/domain-error.ts';
import type { Storage } from '../storage/database.ts';
import { newId } from '../storage/ids.ts';
import { precompile } from '../storage/precompiled.ts';
import type { CreditBalancesTable, CreditLedgerTable, Database } from '../storage/schema.ts';
import { type WriteUnit, withWriteUnit } from '../storage/write-unit.ts';
import { FALLBACK_PLAN, getOrganizationPlan, type Plan } from '../tenancy/plans.ts';

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
  /**
   * Credits the plan still allowed this period after this charge, as read under the lock (`Infinity`
   * with uncapped overage); absent when the charge was an earlier one returned again.
   */
  headroom?: number;
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

const chargeOf = precompile<{ requestId: string }, { credits: number; overage: number }>((db, p) =>
  db
    .selectFrom('credit_ledger')
    .select(['credits', 'overage'])
    .where('request_id', '=', p('requestId'))
    .where('kind', '=', 'charge'),
);

const entriesOf = precompile<
  { requestId: string; organizationId: string },
  Pick<CreditLedgerTable, 'kind' | 'credits' | 'overage' | 'period' | 'day' | 'site_id'>
>((db, p) =>
  db
    .selectFrom('credit_ledger')
    .select(['kind', 'credits', 'overage', 'period', 'day', 'site_id'])
    .where('request_id', '=', p('requestId'))
    .where('organization_id', '=', p('organizationId')),
);

const balanceOf = precompile<{ organizationId: string; period: string }, { used: number; overage: number }>(
  (db, p) =>
    db
      .selectFrom('credit_balances')
      .select(['used', 'overage'])
      .where('organization_id', '=', p('organizationId'))
      .where('period', '=', p('period')),
);

/** One ledger row; the tests of the statement machinery write with it too. */
export const insertLedgerEntry = precompile<CreditLedgerTable>((db, p) =>
  db.insertInto('credit_ledger').values({
    id: p('id'),
    organization_id: p('organization_id'),
    site_id: p('site_id'),
    request_id: p('request_id'),
    kind: p('kind'),
    credits: p('credits'),
    overage: p('overage'),
    period: p('period'),
    day: p('day'),
    created_at: p('created_at'),
  }),
);

/** Safe as read-then-write: every caller holds the organization lock. */
export const upsertBalance = precompile<CreditBalancesTable>((db, p) =>
  db
    .insertInto('credit_balances')
    .values({
      organization_id: p('organization_id'),
      period: p('period'),
      used: p('used'),
      overage: p('overage'),
    })
    .onConflict((oc) =>
      oc.columns(['organization_id', 'period']).doUpdateSet({ used: p('used'), overage: p('overage') }),
    ),
);

export interface ChargeInput {
  organizationId: string;
  siteId: string | null;
  requestId: string;
  now?: Date;
  /** The organization's plan when the caller has just read it (the assistant gate has, for its rate limits). */
  plan?: Plan;
  /**
   * The caller made the request id itself for this request (the assistant gate: ids are server-made),
   * so there is no earlier charge to look up; the ledger's unique (request, kind) index still refuses a
   * second one.
   */
  fresh?: boolean;
}

/**
 * Charges one request, exactly once: the balance check, the ledger entry and the running total are
 * one transaction under the organization lock. A second call with the same request id returns the
 * first charge. Throws 402 `credits_exhausted` when the plan allows no more.
 */
export async function chargeCredits(storage: Storage, input: ChargeInput): Promise<Charge> {
  return withWriteUnit(storage, { lockOrganizationId: input.organizationId }, (unit) =>
    chargeWithin(unit, input),
  );
}

/**
 * `chargeCredits` inside a unit the caller opened with `lockOrganizationId` set to this organization,
 * so other writes (the assistant's thread) commit or roll back with the charge.
 */
export async function chargeWithin(unit: WriteUnit, input: ChargeInput): Promise<Charge> {
  const now = input.now ?? new Date();
  const period = periodOf(now);
  const { organizationId, requestId } = input;
  const previous = input.fresh ? undefined : await unit.get(chargeOf, { requestId });
  if (previous) return { requestId, organizationId, ...numbers(previous) };
  // Exactness rests on reading the balance under the lock; the plan is configuration.
  const plan = input.plan ?? (await getOrganizationPlan(unit, organizationId)) ?? FALLBACK_PLAN;
  const balance = await unit.get(balanceOf, { organizationId, period });
  const used = Number(balance?.used ?? 0);
  const overageUsed = Number(balance?.overage ?? 0);
  const cost = plan.creditCost;
  const includedLeft = Math.max(0, plan.monthlyCredits - (used - overageUsed));
  const overage = Math.max(0, cost - includedLeft);
  if (overage > 0) refuseOverage(plan, overageUsed, overage, now);

  await unit.run(insertLedgerEntry, {
    id: newId('cre'),
    organization_id: organizationId,
    site_id: input.siteId,
    request_id: requestId,
    kind: 'charge',
    credits: cost,
    overage,
    period,
    day: dayOf(now),
    created_at: now.toISOString(),
  });
  await unit.run(upsertBalance, {
    organization_id: organizationId,
    period,
    used: used + cost,
    overage: overageUsed + overage,
  });
  const overageLeft = !plan.overageEnabled
    ? 0
    : plan.overageCap === null
      ? Number.POSITIVE_INFINITY
      : plan.overageCap - (overageUsed + overage);
  const headroom = Math.max(0, includedLeft - (cost - overage)) + Math.max(0, overageLeft);
  return { requestId, organizationId, credits: cost, overage, headroom };
}

function refuseOverage(plan: Plan, overageUsed: number, overage: number, now: Date): void {
  const resets = nextPeriodStart(now);
  if (!plan.overageEnabled) {
    throw new DomainError(
      'credits_exhausted',
      `This organization has used its ${plan.monthlyCredits} included credits for the month and overage is off; credits renew at ${resets}`,
    );
  }
  if (plan.overageCap !== null && overageUsed + overage > plan.overageCap) {
    throw new DomainError(
      'credits_exhausted',
      `This organization has reached its overage cap of ${plan.overageCap} credits for the month; credits renew at ${resets}`,
    );
  }
}

export interface RefundInput {
  organizationId: string;
  requestId: string;
  now?: Date;
}

/**
 * Gives back a request's charge (a refund entry keyed by the same request id). Idempotent, and a
 * no-op for a request that was never charged. Returns whether a refund was written now.
 */
export async function refundCredits(storage: Storage, input: RefundInput): Promise<boolean> {
  return withWriteUnit(storage, { lockOrganizationId: input.organizationId }, (unit) =>
    refundWithin(unit, input),
  );
}

/** `refundCredits` inside a unit the caller opened with `lockOrganizationId` set to this organization. */
export async function refundWithin(unit: WriteUnit, input: RefundInput): Promise<boolean> {
  const now = input.now ?? new Date();
  const entries = await unit.all(entriesOf, {
    requestId: input.requestId,
    organizationId: input.organizationId,
  });
  const charge = entries.find((e) => e.kind === 'charge');
  if (!charge || entries.some((e) => e.kind === 'refund')) return false;
  const { credits, overage } = numbers(charge);
  await unit.run(insertLedgerEntry, {
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
  });
  const balance = await unit.get(balanceOf, {
    organizationId: input.organizationId,
    period: charge.period,
  });
  await unit.run(upsertBalance, {
    organization_id: input.organizationId,
    period: charge.period,
    used: Number(balance?.used ?? 0) - credits,
    overage: Number(balance?.overage ?? 0) - overage,
  });
  return true;
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
