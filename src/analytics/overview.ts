/**
 * The console's overview: how many questions in the range, answered or not, readers' votes, credits,
 * time to first token and a series to chart. One query over the filtered questions, and the credit
 * balance.
 */
import { sql } from 'kysely';
import { type Balance, getBalance } from '../limits/credits.ts';
import type { Storage } from '../storage/database.ts';
import { FALLBACK_PLAN, getOrganizationPlan, type Plan } from '../tenancy/plans.ts';
import type { AnalyticsFilter } from './analytics-filter.ts';
import { ANSWERED, answerVotes, jsonNumber, num, questionsFrom, siteIdsOf } from './question-scope.ts';

/** Ranges up to this long are charted by the hour, longer ones by the day. */
export const HOURLY_SERIES_MAX_HOURS = 48;

export interface AnalyticsOverview {
  questions: number;
  answered: number;
  unanswered: number;
  feedbackUp: number;
  feedbackDown: number;
  /** Credits used in the organization's current billing period (a calendar month, UTC), overage included. */
  creditsUsed: number;
  /** Credits the plan still allows this period (included and overage); null when overage is uncapped. */
  creditsLeft: number | null;
  /** Time to first token of the range's answers, in ms; null when none has one. */
  firstTokenMs: { p50: number; p95: number } | null;
  /** Hourly buckets for ranges up to 48 hours, daily ones otherwise; every bucket of the range, zeros included. */
  series: { start: string; questions: number; unanswered: number }[];
  /** The series' bucket size. */
  bucket: 'hour' | 'day';
}

export async function analyticsOverview(
  storage: Storage,
  organizationId: string,
  filter: AnalyticsFilter,
): Promise<AnalyticsOverview> {
  const siteIds = await siteIdsOf(storage, organizationId, filter);
  const bucket = bucketOf(filter);
  const prefix = bucket === 'hour' ? 13 : 10;
  // A vote on an answer since regenerated still counts: it is the reader's word on the question.
  const votes = answerVotes(storage.dialect, organizationId, { replaced: true });
  const firstToken = jsonNumber(storage.dialect, sql`a.timings`, 'firstTokenMs');
  // One pass over the questions, aggregated here: the join is most of the cost, and percentiles need
  // every first-token time anyway (neither database has a portable percentile aggregate).
  const rows = await sql<{ bucket: string; answered: unknown; up: unknown; down: unknown; ms: unknown }>`
    select substr(q.created_at, 1, ${sql.lit(prefix)}) as bucket, ${ANSWERED} as answered,
      ${votes.up} as up, ${votes.down} as down, ${firstToken} as ms
    ${questionsFrom(organizationId, siteIds, filter, votes.join)}`.execute(storage.db);

  const totals = { questions: 0, answered: 0, feedbackUp: 0, feedbackDown: 0 };
  const byBucket = new Map<string, { questions: number; unanswered: number }>();
  const times: number[] = [];
  for (const row of rows.rows) {
    const answered = num(row.answered) === 1;
    totals.questions += 1;
    if (answered) totals.answered += 1;
    totals.feedbackUp += num(row.up);
    totals.feedbackDown += num(row.down);
    const counts = byBucket.get(row.bucket) ?? { questions: 0, unanswered: 0 };
    counts.questions += 1;
    if (!answered) counts.unanswered += 1;
    byBucket.set(row.bucket, counts);
    if (row.ms !== null && row.ms !== undefined) times.push(num(row.ms));
  }
  const series = bucketStarts(filter, bucket).map((start) => ({
    start,
    ...(byBucket.get(start.slice(0, prefix)) ?? { questions: 0, unanswered: 0 }),
  }));
  const credits = await creditsOf(storage, organizationId);
  return {
    questions: totals.questions,
    answered: totals.answered,
    unanswered: totals.questions - totals.answered,
    feedbackUp: totals.feedbackUp,
    feedbackDown: totals.feedbackDown,
    ...credits,
    firstTokenMs: percentiles(times),
    series,
    bucket,
  };
}

function bucketOf(filter: AnalyticsFilter): 'hour' | 'day' {
  const hours = (Date.parse(filter.to) - Date.parse(filter.from)) / 3_600_000;
  return hours <= HOURLY_SERIES_MAX_HOURS ? 'hour' : 'day';
}

/** Every bucket start from the one holding `from` up to `to` (exclusive), as ISO timestamps. */
function bucketStarts(filter: AnalyticsFilter, bucket: 'hour' | 'day'): string[] {
  const step = bucket === 'hour' ? 3_600_000 : 86_400_000;
  const from = Date.parse(filter.from);
  const to = Date.parse(filter.to);
  const starts: string[] = [];
  for (let t = Math.floor(from / step) * step; t < to; t += step) starts.push(new Date(t).toISOString());
  return starts;
}

/** Nearest-rank percentiles (a value that occurred, not an interpolation between two). */
function percentiles(values: number[]): { p50: number; p95: number } | null {
  if (values.length === 0) return null;
  values.sort((a, b) => a - b);
  const at = (p: number) => values[Math.min(values.length - 1, Math.ceil(p * values.length) - 1)] ?? 0;
  return { p50: at(0.5), p95: at(0.95) };
}

async function creditsOf(
  storage: Storage,
  organizationId: string,
): Promise<{ creditsUsed: number; creditsLeft: number | null }> {
  const plan = (await getOrganizationPlan(storage, organizationId)) ?? FALLBACK_PLAN;
  const balance = await getBalance(storage, organizationId);
  return { creditsUsed: balance.used, creditsLeft: creditsLeft(plan, balance) };
}

/**
 * Credits the plan still allows this period: the included ones left, plus the overage still allowed
 * (none when overage is off); null when overage is on without a cap. The overview and the plan and
 * usage screen both show this as "Credits left".
 */
export function creditsLeft(
  plan: Pick<Plan, 'overageEnabled' | 'overageCap'>,
  balance: Pick<Balance, 'remaining' | 'overage'>,
): number | null {
  if (!plan.overageEnabled) return balance.remaining;
  if (plan.overageCap === null) return null;
  return balance.remaining + Math.max(0, plan.overageCap - balance.overage);
}
