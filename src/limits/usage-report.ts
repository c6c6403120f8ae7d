import { DomainError } from '../errors/domain-error.ts';
import type { Storage } from '../storage/database.ts';
import type { Plan } from '../tenancy/plans.ts';
import { type DailyUsage, dailyUsage, dayOf, getBalance } from './credits.ts';

/** Longest range one usage report may cover, in days. */
export const MAX_USAGE_DAYS = 366;
const DAY_MS = 86_400_000;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** Whether `value` is a day on the calendar written YYYY-MM-DD (2026-13-01 and 2026-02-30 are not). */
export const isCalendarDay = (value: string): boolean => {
  if (!DAY.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && dayOf(date) === value;
};

export interface UsageReport {
  organization: string;
  plan: Omit<Plan, 'name' | 'adminRequestsPerMinute'>;
  /** This month's balance. */
  period: { month: string; included: number; used: number; overage: number; remaining: number };
  from: string;
  to: string;
  days: DailyUsage[];
  totals: { requests: number; credits: number; overage: number };
}

/**
 * An organization's credits this month and its usage per day from `from` to `to` (UTC days, inclusive;
 * by default the first of `to`'s month to today): what `GET /v1/admin/usage` and `docent usage` show.
 */
export async function usageReport(
  storage: Storage,
  organizationId: string,
  plan: Plan,
  range: { from?: string | undefined; to?: string | undefined },
  now = new Date(),
): Promise<UsageReport> {
  for (const [name, value] of Object.entries(range))
    if (value !== undefined && !isCalendarDay(value))
      throw new DomainError(
        'invalid_input',
        `${name} must be a day on the calendar, YYYY-MM-DD (got "${value}")`,
      );
  const to = range.to ?? dayOf(now);
  const from = range.from ?? `${to.slice(0, 7)}-01`;
  // An empty range would read as a range without usage.
  if (from > to) throw new DomainError('invalid_input', `from ${from} is after to ${to}`);
  if ((new Date(to).getTime() - new Date(from).getTime()) / DAY_MS >= MAX_USAGE_DAYS)
    throw new DomainError('invalid_input', `from ${from} to ${to} is more than ${MAX_USAGE_DAYS} days`);
  const [balance, days] = await Promise.all([
    getBalance(storage, organizationId, now),
    dailyUsage(storage, organizationId, { from, to }),
  ]);
  const totals = { requests: 0, credits: 0, overage: 0 };
  for (const day of days) {
    totals.requests += day.requests;
    totals.credits += day.credits;
    totals.overage += day.overage;
  }
  return {
    organization: organizationId,
    plan: {
      id: plan.id,
      monthlyCredits: plan.monthlyCredits,
      overageEnabled: plan.overageEnabled,
      overageCap: plan.overageCap,
      creditCost: plan.creditCost,
      orgRequestsPerHour: plan.orgRequestsPerHour,
      ipRequestsPerDay: plan.ipRequestsPerDay,
    },
    period: {
      month: balance.period,
      included: balance.included,
      used: balance.used,
      overage: balance.overage,
      remaining: balance.remaining,
    },
    from,
    to,
    days,
    totals,
  };
}
