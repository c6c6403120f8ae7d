import type { Context } from 'hono';
import { type AnalyticsFilter, analyticsFilterSchema } from '../../../analytics/analytics-filter.ts';
import type { Site } from '../../../tenancy/sites.ts';
import type { ConsoleEnv } from './console-env.ts';

/** Filter fields every analytics screen reads from its query string, as the admin API does. */
const FILTER_KEYS = [
  'site',
  'period',
  'from',
  'to',
  'answered',
  'feedback',
  'page',
  'version',
  'language',
  'q',
] as const;

export interface ParsedFilter {
  filter: AnalyticsFilter;
  /** The query as given, for the form's values and the next page's link. */
  query: Record<string, string>;
  error: string | null;
}

/** The screen's filter from the query string; an invalid one falls back to the last 7 days, with a message. */
export function filterFromQuery(c: Context<ConsoleEnv>): ParsedFilter {
  const query: Record<string, string> = {};
  for (const key of FILTER_KEYS) {
    const value = c.req.query(key);
    if (value !== undefined && value !== '') query[key] = value;
  }
  // The form's dates are days: the filter reads a day as its start (`from`) or its end (`to`), in UTC.
  const custom = { ...query };
  if (custom.from !== undefined || custom.to !== undefined) {
    delete custom.period;
  } else if (custom.period === undefined) {
    custom.period = '7d';
    query.period = '7d';
  }
  if (query.from !== undefined || query.to !== undefined) delete query.period;
  const parsed = analyticsFilterSchema.safeParse(custom);
  if (parsed.success) return { filter: parsed.data, query, error: null };
  const fallback = analyticsFilterSchema.parse({ period: '7d' });
  return {
    filter: fallback,
    query: { period: '7d' },
    error: `${parsed.error.issues.map(filterIssue).join('; ')}. Showing the last 7 days instead.`,
  };
}

/** The form's names of the filter's fields, for its messages. */
const FIELD_LABELS: Record<string, string> = {
  site: 'Site',
  period: 'Period',
  from: 'From',
  to: 'To',
  answered: 'Answered',
  feedback: 'Feedback',
  page: 'Page',
  version: 'Version',
  language: 'Language',
  q: 'Search',
};

/** An issue in the form's words: "To: must be after From", not the query's field names. */
function filterIssue(issue: { path: PropertyKey[]; message: string }): string {
  const field = String(issue.path[0] ?? '');
  const message = issue.message.replace(/\b(period|from|to)\b/g, (name) => FIELD_LABELS[name] ?? name);
  return `${FIELD_LABELS[field] ?? 'Filter'}: ${message}`;
}

/** The same query with some keys changed (a next-page cursor, another period). */
export function withQuery(
  path: string,
  query: Record<string, string>,
  changes: Record<string, string | undefined>,
): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries({ ...query, ...changes }))
    if (value !== undefined && value !== '') params.set(key, value);
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

/** The filters on the questions, beyond site and range: each screen's bar shows some of them, or none. */
const QUESTION_FILTERS = ['answered', 'feedback', 'page', 'version', 'language', 'q'] as const;

export function FilterBar(props: {
  action: string;
  query: Record<string, string>;
  sites: Site[];
  error: string | null;
  fields?: (typeof QUESTION_FILTERS)[number][];
}) {
  const q = props.query;
  const fields = new Set(props.fields ?? []);
  // A site that is not one of the organization's (mistyped, deleted, another's) matches nothing: say so,
  // rather than show "All sites" over an empty page.
  const unknownSite =
    q.site !== undefined && !props.sites.some((s) => s.domain === q.site) ? q.site : undefined;
  // Filters the query applies that this screen's bar has no field for (a link or a bookmark made on
  // another screen): its figures are filtered by them, so say so, and Apply, which cannot send them, drops them.
  const unseen = QUESTION_FILTERS.filter((key) => q[key] !== undefined && !fields.has(key));
  return (
    <>
      {props.error ? (
        <div class="notice" role="alert" style="background:#fee2e2;border-color:#fca5a5">
          {props.error}
        </div>
      ) : null}
      {unknownSite !== undefined ? (
        <div class="notice" role="alert" style="background:#fee2e2;border-color:#fca5a5">
          site: this organization has no site "{unknownSite}", so nothing matches
        </div>
      ) : null}
      {unseen.length > 0 ? (
        <div class="notice">
          Also filtered by {unseen.map((key) => `${FIELD_LABELS[key]}: ${q[key]}`).join('; ')}.{' '}
          <a href={withQuery(props.action, q, Object.fromEntries(unseen.map((key) => [key, undefined])))}>
            Show without
          </a>
        </div>
      ) : null}
      <form class="filters" method="get" action={props.action}>
        <label>
          Site
          <select name="site">
            <option value="">All sites</option>
            {props.sites.map((s) => (
              <option value={s.domain} selected={q.site === s.domain}>
                {s.domain}
              </option>
            ))}
          </select>
        </label>
        <label>
          Period
          <select name="period">
            <option value="">Custom (from/to)</option>
            {(['24h', '7d', '30d'] as const).map((p) => (
              <option value={p} selected={q.period === p}>
                {p === '24h' ? 'Last 24 hours' : p === '7d' ? 'Last 7 days' : 'Last 30 days'}
              </option>
            ))}
          </select>
        </label>
        <label>
          From
          <input type="date" name="from" value={q.from?.slice(0, 10) ?? ''} />
        </label>
        <label>
          To
          <input type="date" name="to" value={q.to?.slice(0, 10) ?? ''} />
        </label>
        {fields.has('answered') ? (
          <label>
            Answered
            <select name="answered">
              <option value="">Any</option>
              <option value="answered" selected={q.answered === 'answered'}>
                Answered
              </option>
              <option value="unanswered" selected={q.answered === 'unanswered'}>
                Couldn't answer
              </option>
            </select>
          </label>
        ) : null}
        {fields.has('feedback') ? (
          <label>
            Feedback
            <select name="feedback">
              <option value="">Any</option>
              <option value="up" selected={q.feedback === 'up'}>
                Helpful
              </option>
              <option value="down" selected={q.feedback === 'down'}>
                Not helpful
              </option>
              <option value="none" selected={q.feedback === 'none'}>
                None
              </option>
            </select>
          </label>
        ) : null}
        {fields.has('page') ? (
          <label>
            Page
            <input name="page" value={q.page ?? ''} placeholder="guides/cli" />
          </label>
        ) : null}
        {fields.has('version') ? (
          <label>
            Version
            <input name="version" value={q.version ?? ''} size={6} />
          </label>
        ) : null}
        {fields.has('language') ? (
          <label>
            Language
            <input name="language" value={q.language ?? ''} size={4} />
          </label>
        ) : null}
        {fields.has('q') ? (
          <label>
            Search questions
            <input type="search" name="q" value={q.q ?? ''} />
          </label>
        ) : null}
        <button class="secondary" type="submit">
          Apply
        </button>
      </form>
    </>
  );
}
