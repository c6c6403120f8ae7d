/**
 * npm run bench:console [-- --messages 100000 --runs 30 --only sqlite|postgres]
 * The owner's console analytics on a big history: seeds about 100,000 stored messages (questions and
 * answers, with votes and question groups) across two organizations with `seedAnalytics`, on SQLite
 * (a temp file) and on PostgreSQL (a temporary database at DOCENT_TEST_POSTGRES_URL), then times each
 * analytics use case `--runs` times for one organization and prints p50/p95 per query next to the
 * target (p95 under 200 ms). Asserts nothing.
 */
import type { AnalyticsFilter } from '../src/analytics/analytics-filter.ts';
import { periodToRange } from '../src/analytics/analytics-filter.ts';
import { listConversations } from '../src/analytics/conversations.ts';
import { listFeedback } from '../src/analytics/feedback-inbox.ts';
import { analyticsOverview } from '../src/analytics/overview.ts';
import { pageStats } from '../src/analytics/pages.ts';
import { listQuestionGroups } from '../src/analytics/question-groups.ts';
import { SiteSearch } from '../src/search/site-search.ts';
import { type DialectName, openStorage } from '../src/storage/database.ts';
import { createTemporaryDatabase } from '../src/storage/temporary-database.ts';
import { seedAnalytics } from '../src/testing/seed-analytics.ts';
import { readTestServiceSettings } from '../src/testing/test-services.ts';

const args = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const targetMessages = Number(option('messages') ?? 100_000);
const runs = Number(option('runs') ?? 30);
const only = option('only') as DialectName | undefined;
const TARGET_P95_MS = 200;
/** Messages per thread `seedAnalytics` makes on average (1.4 questions, each with its answer). */
const MESSAGES_PER_THREAD = 2.8;
const ORGANIZATIONS = 2;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? Number.NaN;
}

async function bench(dialect: DialectName): Promise<void> {
  const temporary = await createTemporaryDatabase(dialect, readTestServiceSettings().postgresUrl);
  const storage = await openStorage(temporary.url);
  try {
    const now = new Date();
    const seedStarted = performance.now();
    const seeded = await seedAnalytics(storage, {
      organizations: ORGANIZATIONS,
      threadsPerOrganization: Math.round(targetMessages / MESSAGES_PER_THREAD / ORGANIZATIONS),
      days: 60,
      now,
    });
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    const org = seeded.organizations[0];
    if (org === undefined) throw new Error('nothing seeded');
    const orgId = org.organization.id;
    const search = new SiteSearch(storage);
    const range = (period: '24h' | '7d' | '30d'): AnalyticsFilter => periodToRange(period, now);
    const queries: [string, () => Promise<unknown>][] = [
      ['overview 24h', () => analyticsOverview(storage, orgId, range('24h'))],
      ['overview 7d', () => analyticsOverview(storage, orgId, range('7d'))],
      ['overview 30d', () => analyticsOverview(storage, orgId, range('30d'))],
      ['conversations, first page', () => listConversations(storage, orgId, range('30d'), { limit: 50 })],
      [
        'conversations, unanswered + q',
        () =>
          listConversations(
            storage,
            orgId,
            { ...range('30d'), answered: 'unanswered', q: 'key' },
            { limit: 50 },
          ),
      ],
      [
        'gaps 30d',
        () => listQuestionGroups(storage, orgId, range('30d'), { kind: 'gaps', limit: 20, search }),
      ],
      [
        'top questions 30d',
        () => listQuestionGroups(storage, orgId, range('30d'), { kind: 'top', limit: 20, search }),
      ],
      ['pages 30d', () => pageStats(storage, orgId, range('30d'))],
      ['feedback 30d', () => listFeedback(storage, orgId, range('30d'), { limit: 50 })],
    ];
    console.log(
      `\n${dialect}: ${seeded.messages.toLocaleString('en')} messages in ${seeded.threads.toLocaleString('en')} threads, ` +
        `${seeded.feedback.toLocaleString('en')} votes, ${seeded.groups.toLocaleString('en')} groups, two organizations, 60 days ` +
        `(seeded in ${seedSeconds.toFixed(1)} s); ${runs} runs per query for one organization\n`,
    );
    console.log('| query | p50 ms | p95 ms | target p95 |');
    console.log('|---|---|---|---|');
    for (const [label, run] of queries) {
      await run(); // warm-up: statement caches, the search index
      const times: number[] = [];
      for (let i = 0; i < runs; i++) {
        const started = performance.now();
        await run();
        times.push(performance.now() - started);
      }
      times.sort((a, b) => a - b);
      const p95 = percentile(times, 0.95);
      console.log(
        `| ${label} | ${percentile(times, 0.5).toFixed(1)} | ${p95.toFixed(1)} | < ${TARGET_P95_MS}${p95 < TARGET_P95_MS ? '' : ' (missed)'} |`,
      );
    }
  } finally {
    await storage.close();
    await temporary.remove();
  }
}

for (const dialect of ['sqlite', 'postgres'] as const) {
  if (only === undefined || only === dialect) await bench(dialect);
}
