/**
 * What console screens say and link: the feedback inbox's export links carry its tab (Open, Resolved,
 * All) and the export holds the votes of that tab, what the owner was looking at; the screens say how
 * they sort and that their times are UTC.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listFeedback } from '../../../analytics/feedback-inbox.ts';
import { analyticsOverview } from '../../../analytics/overview.ts';
import type { createApp } from '../../../app.ts';
import { modelInUse } from '../../../assistant/providers/create-model-provider.ts';
import { updateSiteModelSettings } from '../../../assistant/providers/site-model-settings.ts';
import { storeAnswerWithin } from '../../../assistant/threads.ts';
import { loadConfig } from '../../../config.ts';
import { withWriteUnit } from '../../../storage/write-unit.ts';
import { signInToConsole } from '../../../tenancy/console-sessions.ts';
import { MAX_NAME_LENGTH, updateSite } from '../../../tenancy/sites.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../../../testing/databases.ts';
import { type SeededOrganization, seedAnalytics } from '../../../testing/seed-analytics.ts';
import { createTestApp } from '../../../testing/test-app.ts';

describe.each(dialects)('console screens on %s', (dialect) => {
  let database: TestDatabase;
  let app: ReturnType<typeof createApp>;
  let owner: SeededOrganization;
  let cookie: string;
  const now = new Date();

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    app = createTestApp(database.storage, {
      docsRoot: null,
      // As the server builds it, from a configuration with no provider's key.
      modelInUse: (siteModel) => modelInUse(loadConfig({}).model, siteModel),
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

  it('marks a vote kept from a regenerated answer, with the text voted on', async () => {
    const [vote] = await database.storage.db
      .selectFrom('message_feedback')
      .innerJoin('thread_messages', 'thread_messages.id', 'message_feedback.message_id')
      .select(['message_feedback.message_id', 'message_feedback.thread_id', 'thread_messages.seq'])
      .where('message_feedback.organization_id', '=', owner.organization.id)
      .limit(1)
      .execute();
    if (vote === undefined) throw new Error('the seed has no vote');
    await withWriteUnit(database.storage, {}, (unit) =>
      storeAnswerWithin(unit, vote.thread_id, Number(vote.seq) - 1, {
        content: 'The regenerated answer.',
        status: 'complete',
        requestId: 'req_~regenerated',
      }),
    );
    // Newest change first: the kept vote tops the inbox.
    await database.storage.db
      .updateTable('message_feedback')
      .set({ updated_at: new Date(now.getTime() - 1000).toISOString(), resolved_at: null })
      .where('message_id', '=', vote.message_id)
      .execute();
    const inbox = await get('/console/feedback?period=30d&show=all');
    expect(inbox).toContain('Answer regenerated');
    const transcript = await get(`/console/conversations/${vote.thread_id}`);
    expect(transcript).toContain('On an answer since regenerated');
    expect(transcript).toContain('The regenerated answer.');
  });

  it('shows the start of a very long question in the feedback inbox, the whole one in its conversation', async () => {
    // One pasted 60,000-character word, shown whole in the inbox, took the browser tens of seconds to wrap.
    const vote = await database.storage.db
      .selectFrom('message_feedback')
      .select(['message_id', 'thread_id'])
      .where('organization_id', '=', owner.organization.id)
      .where('replaced_by', 'is', null)
      .orderBy('updated_at', 'desc')
      .executeTakeFirstOrThrow();
    const answer = await database.storage.db
      .selectFrom('thread_messages')
      .select('seq')
      .where('id', '=', vote.message_id)
      .executeTakeFirstOrThrow();
    const long = `Why ${'y'.repeat(60_000)}`;
    await database.storage.db
      .updateTable('thread_messages')
      .set({ content: long })
      .where('thread_id', '=', vote.thread_id)
      .where('seq', '=', answer.seq - 1)
      .execute();
    const inbox = await get('/console/feedback?period=30d&show=all');
    expect(inbox).toContain(`Why ${'y'.repeat(396)}…`);
    expect(inbox).not.toContain('y'.repeat(400));
    // Whole, with a line break offered every 64 characters of the word (breakable.tsx).
    const conversation = await get(`/console/conversations/${vote.thread_id}`);
    expect(conversation.replace(/<wbr\s*\/?>/g, '')).toContain(long);
  });

  it("tells the owner which model writes a site's answers, and why not the one set", async () => {
    const site = owner.sites[0];
    if (site === undefined) throw new Error('no seeded site');
    expect(await get(`/console/sites/${site.domain}`)).toContain(
      'Answers are written by <code>builtin</code>',
    );
    await updateSiteModelSettings(database.storage, site.id, { model: 'openai:gpt-4o-mini' });
    const page = await get(`/console/sites/${site.domain}`);
    expect(page).toContain(
      'The model set here is not used: provider openai is not configured on this server (OPENAI_API_KEY not set).',
    );
    await updateSiteModelSettings(database.storage, site.id, { model: null });
  });

  it('lets a name of the longest length the server takes be typed, counted in code points as it is', async () => {
    const site = owner.sites[0];
    if (site === undefined) throw new Error('no seeded site');
    // 200 emoji: 200 characters to the server, 400 UTF-16 units to a browser's maxlength.
    const longest = '\u{1F600}'.repeat(MAX_NAME_LENGTH);
    const maxlength = (page: string) => Number(/<input name="name"[^>]*maxlength="(\d+)"/.exec(page)?.[1]);
    await updateSite(database.storage, site.id, { name: longest });
    try {
      const settings = await get(`/console/sites/${site.domain}`);
      expect(settings).toContain(longest);
      expect(maxlength(settings)).toBeGreaterThanOrEqual(longest.length);
      expect(maxlength(await get('/console/keys'))).toBeGreaterThanOrEqual(longest.length);
    } finally {
      await updateSite(database.storage, site.id, { name: site.name });
    }
  });

  it('says which filters apply that the screen has no field for, with the figures they give', async () => {
    const page = await get('/console?period=30d&answered=unanswered&language=en');
    expect(page).toContain('Also filtered by Answered: unanswered; Language: en.');
    expect(page).toContain('href="/console?period=30d">Show without</a>');
    const overview = await analyticsOverview(database.storage, owner.organization.id, {
      from: new Date(now.getTime() - 30 * 86_400_000).toISOString(),
      to: new Date(now.getTime() + 3_600_000).toISOString(),
      answered: 'unanswered',
      language: 'en',
    });
    expect(overview.questions).toBeGreaterThan(0);
    expect(page).toMatch(new RegExp(`Questions</div>\\s*<div class="value">${overview.questions}<`));
    // The conversations screen has those fields: no notice there.
    expect(await get('/console/conversations?period=30d&answered=unanswered')).not.toContain(
      'Also filtered by',
    );
  });

  it('say how gaps are sorted, and that times are UTC', async () => {
    const gaps = await get('/console/gaps?period=30d');
    expect(gaps).toContain('most unanswered first');
    expect(gaps).not.toContain('most asked first');
    for (const screen of ['/console', '/console/conversations', '/console/feedback', '/console/usage'])
      expect(await get(screen), screen).toContain('Times and days are in UTC.');
  });
});
