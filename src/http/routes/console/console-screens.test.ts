/**
 * What console screens say and link: the feedback inbox's export links carry its tab (Open, Resolved,
 * All) and the export holds the votes of that tab, what the owner was looking at; the screens say how
 * they sort and that their times are UTC.
 */
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listFeedback } from '../../../analytics/feedback-inbox.ts';
import { createApp } from '../../../app.ts';
import { SiteSearch } from '../../../search/site-search.ts';
import { signInToConsole } from '../../../tenancy/console-sessions.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../../../testing/databases.ts';
import { type SeededOrganization, seedAnalytics } from '../../../testing/seed-analytics.ts';

describe.each(dialects)('console screens on %s', (dialect) => {
  let database: TestDatabase;
  let app: ReturnType<typeof createApp>;
  let owner: SeededOrganization;
  let cookie: string;
  const now = new Date();

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    app = createApp({
      storage: database.storage,
      search: new SiteSearch(database.storage),
      logger: pino({ level: 'silent' }),
      docsRoot: null,
    });
    const seeded = await seedAnalytics(database.storage, { threadsPerOrganization: 60, now, days: 10 });
    owner = seeded.organizations[0] as SeededOrganization;
    cookie = `docent_console=${(await signInToConsole(database.storage, owner.adminKey)).secret}`;
  });
  afterAll(async () => {
    await database?.drop();
  });

  const get = async (path: string) => {
    const response = await app.request(`http://localhost${path}`, { headers: { Cookie: cookie } });
    expect(response.status, path).toBe(200);
    return response.text();
  };

  it('links the export of the tab shown, and exports its votes only', async () => {
    const page = await get('/console/feedback?period=30d&show=resolved');
    expect(page).toContain('href="/console/export/feedback.csv?period=30d&amp;show=resolved"');
    expect(page).toContain('href="/console/export/feedback.jsonl?period=30d&amp;show=resolved"');
    const votes = async (resolved?: boolean) =>
      (
        await listFeedback(
          database.storage,
          owner.organization.id,
          { from: new Date(now.getTime() - 30 * 86_400_000).toISOString(), to: now.toISOString(), resolved },
          { limit: 100 },
        )
      ).items.map((v) => `${v.messageId}/${v.fpHash}`);
    const exported = async (show: string) =>
      (await get(`/console/export/feedback.jsonl?period=30d${show}`))
        .trim()
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as { messageId: string; fpHash: string })
        .map((v) => `${v.messageId}/${v.fpHash}`);
    const [resolved, open, all] = [await votes(true), await votes(false), await votes()];
    expect(resolved.length).toBeGreaterThan(0);
    expect(open.length).toBeGreaterThan(0);
    expect(await exported('&show=resolved')).toEqual(resolved);
    expect(await exported('&show=open')).toEqual(open);
    expect(await exported('&show=all')).toEqual(all);
    // Without a tab, the inbox's own default: the open votes.
    expect(await exported('')).toEqual(open);
  });

  it('say how gaps are sorted, and that times are UTC', async () => {
    const gaps = await get('/console/gaps?period=30d');
    expect(gaps).toContain('most unanswered first');
    expect(gaps).not.toContain('most asked first');
    for (const screen of ['/console', '/console/conversations', '/console/feedback', '/console/usage'])
      expect(await get(screen), screen).toContain('Times and days are in UTC.');
  });
});
