/**
 * The filter every analytics use case takes (the console's filter bar, the admin API's query string):
 * a site, a time range, and what the questions must be. Parsed once here, so the routes and the console
 * agree on names, defaults and limits.
 */
import { z } from 'zod';
import { domainSchema } from '../tenancy/sites.ts';

export interface AnalyticsFilter {
  /** Site domain; all the organization's sites when absent. */
  site?: string;
  /** ISO timestamp, inclusive. */
  from: string;
  /** ISO timestamp, exclusive. */
  to: string;
  answered?: 'answered' | 'unanswered';
  feedback?: 'up' | 'down' | 'none' | 'any';
  /** The page the reader was on (the page id its currentPath named, else currentPath as sent), exact match. */
  page?: string;
  version?: string;
  language?: string;
  /** Words searched in the questions (case-insensitive substring). */
  q?: string;
}

export const ANALYTICS_PERIODS = ['24h', '7d', '30d'] as const;
export type AnalyticsPeriod = (typeof ANALYTICS_PERIODS)[number];

/** The period when the query names neither one nor a range. */
export const DEFAULT_PERIOD: AnalyticsPeriod = '7d';
/** Longest custom range: a year and a day, so "the last year" fits (daily buckets: 367 at most). */
export const MAX_RANGE_DAYS = 367;
/** Characters of a `page` filter: the assistant endpoints take `currentPath` up to 200. */
export const MAX_PAGE_FILTER_CHARS = 200;
/** Characters of a `version`/`language` filter: the assistant endpoints' limit for filter values. */
export const MAX_LABEL_FILTER_CHARS = 512;
/** Characters of a `q` search: a few words. */
export const MAX_SEARCH_CHARS = 200;

const HOUR_MS = 3_600_000;
const PERIOD_MS: Record<AnalyticsPeriod, number> = {
  '24h': 24 * HOUR_MS,
  '7d': 7 * 24 * HOUR_MS,
  '30d': 30 * 24 * HOUR_MS,
};

/** The range a named period covers, ending now: `to` is the start of the next hour, so buckets are whole hours. */
export function periodToRange(period: AnalyticsPeriod, now: Date = new Date()): { from: string; to: string } {
  const end = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS + HOUR_MS;
  return { from: new Date(end - PERIOD_MS[period]).toISOString(), to: new Date(end).toISOString() };
}

const DAY_MS = 24 * HOUR_MS;
const dayString = z.string().date();
const timeString = z.string().datetime({ offset: true });
/** A bound of a custom range: a calendar day or a time with its offset (a time without one is ambiguous). */
const rangeBound = z
  .string()
  .refine(
    (value) => dayString.safeParse(value).success || timeString.safeParse(value).success,
    'must be a day (2026-11-01) or an ISO 8601 time with its offset (2026-11-01T09:00:00Z)',
  );

/**
 * The instant a range bound stands for: a day is its start as `from` and its end (the next day's start,
 * the range being exclusive there) as `to`, in UTC, so `from=2026-11-01&to=2026-11-30` is all of November.
 */
export function rangeBoundTime(value: string, bound: 'from' | 'to'): number {
  if (!dayString.safeParse(value).success) return Date.parse(value);
  const start = Date.parse(`${value}T00:00:00Z`);
  return bound === 'from' ? start : start + DAY_MS;
}

const trimmed = (max: number) => z.string().trim().min(1).max(max, `must be at most ${max} characters`);

/** The filter's fields as the query string spells them (documented in the OpenAPI document). */
export const analyticsFilterFields = {
  site: domainSchema.optional().describe("A site's domain; all the organization's sites when absent"),
  period: z
    .enum(ANALYTICS_PERIODS)
    .optional()
    .describe(`The last 24 hours, 7 or 30 days (default ${DEFAULT_PERIOD}); or give \`from\` and \`to\``),
  from: rangeBound
    .optional()
    .describe(
      'Start of a custom range (inclusive): a day (`2026-11-01`, from its start in UTC) or an ISO 8601 time with its offset',
    ),
  to: rangeBound
    .optional()
    .describe(
      'End of a custom range: a day (`2026-11-30`, included to its end in UTC) or an ISO 8601 time with its offset (exclusive)',
    ),
  answered: z.enum(['answered', 'unanswered']).optional(),
  feedback: z
    .enum(['up', 'down', 'none', 'any'])
    .optional()
    .describe('Questions whose answer got a vote up, down, none at all, or any'),
  page: trimmed(MAX_PAGE_FILTER_CHARS)
    .optional()
    .describe(
      'The page the reader was on, exactly: the page id its `currentPath` named (`guides/setup`), else `currentPath` as sent',
    ),
  version: trimmed(MAX_LABEL_FILTER_CHARS)
    .optional()
    .describe('The `filter.version` the question was asked with'),
  language: trimmed(MAX_LABEL_FILTER_CHARS)
    .optional()
    .describe('The `filter.language` the question was asked with'),
  q: trimmed(MAX_SEARCH_CHARS).optional().describe('Words in the question (case-insensitive)'),
};

type RawFilter = z.infer<z.ZodObject<typeof analyticsFilterFields>>;

/** Checks the range rules the fields alone cannot: a period or a whole range, in order, not too long. */
function checkRange(raw: RawFilter, ctx: z.RefinementCtx): void {
  if (raw.period !== undefined && (raw.from !== undefined || raw.to !== undefined)) {
    ctx.addIssue({
      code: 'custom',
      path: ['period'],
      message: 'give either period or from and to, not both',
    });
    return;
  }
  if ((raw.from === undefined) !== (raw.to === undefined)) {
    ctx.addIssue({
      code: 'custom',
      path: [raw.from === undefined ? 'from' : 'to'],
      message: 'from and to go together',
    });
    return;
  }
  if (raw.from !== undefined && raw.to !== undefined) {
    const from = rangeBoundTime(raw.from, 'from');
    const to = rangeBoundTime(raw.to, 'to');
    if (!(from < to)) ctx.addIssue({ code: 'custom', path: ['to'], message: 'must be after from' });
    else if (to - from > MAX_RANGE_DAYS * DAY_MS)
      ctx.addIssue({ code: 'custom', path: ['to'], message: `a range is at most ${MAX_RANGE_DAYS} days` });
  }
}

/** The parsed query as a filter: the range made absolute (a period ends now), timestamps in UTC. */
export function toAnalyticsFilter(raw: RawFilter, now: Date = new Date()): AnalyticsFilter {
  const range =
    raw.from !== undefined && raw.to !== undefined
      ? {
          from: new Date(rangeBoundTime(raw.from, 'from')).toISOString(),
          to: new Date(rangeBoundTime(raw.to, 'to')).toISOString(),
        }
      : periodToRange(raw.period ?? DEFAULT_PERIOD, now);
  const filter: AnalyticsFilter = range;
  if (raw.site !== undefined) filter.site = raw.site;
  if (raw.answered !== undefined) filter.answered = raw.answered;
  if (raw.feedback !== undefined) filter.feedback = raw.feedback;
  if (raw.page !== undefined) filter.page = raw.page;
  if (raw.version !== undefined) filter.version = raw.version;
  if (raw.language !== undefined) filter.language = raw.language;
  if (raw.q !== undefined) filter.q = raw.q;
  return filter;
}

/**
 * A strict query schema of the filter's fields plus `extra` (a route's `cursor`, `limit`…), parsed into
 * an `AnalyticsFilter` with the extra fields beside it. Unknown parameters are refused: a misspelt
 * filter must not silently widen what is shown.
 */
export function analyticsQuerySchema<Extra extends z.ZodRawShape>(extra: Extra) {
  return z
    .object({ ...analyticsFilterFields, ...extra })
    .strict()
    .superRefine((raw, ctx) => checkRange(raw as RawFilter, ctx))
    .transform((raw) => {
      const filter = toAnalyticsFilter(raw as RawFilter);
      const rest: Record<string, unknown> = {};
      for (const key of Object.keys(extra)) rest[key] = (raw as Record<string, unknown>)[key];
      return { filter, ...(rest as z.infer<z.ZodObject<Extra>>) };
    });
}

/** The filter alone, from a query string (`?site=…&period=7d&answered=unanswered`). */
export const analyticsFilterSchema: z.ZodType<AnalyticsFilter, z.ZodTypeDef, unknown> = z
  .object(analyticsFilterFields)
  .strict()
  .superRefine(checkRange)
  .transform((raw) => toAnalyticsFilter(raw));
