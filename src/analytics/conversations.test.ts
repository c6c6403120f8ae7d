/**
 * Which threads the conversation list and its export select: those with a question asked in the range
 * that matches every filter, as the other analytics views count questions, whatever the thread's last
 * activity; paged without loss or repeats when threads share a time; and the `q` search ignoring case
 * beyond ASCII on both databases.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../limits/limits-fixtures.ts';
import { newId } from '../storage/ids.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../testing/databases.ts';
import type { AnalyticsFilter } from './analytics-filter.ts';
import { listConversations } from './conversations.ts';
import { EXPORT_THREAD_BATCH, exportConversations } from './export.ts';
import { analyticsOverview } from './overview.ts';

/** A question asked at `at` (ISO) and its answer, answered or not. */
type Asked = { at: string; text?: string; answered: boolean };

/** The day the ranges below look at (UTC). */
const DAY: AnalyticsFilter = { from: '2026-03-10T00:00:00.000Z', to: '2026-03-11T00:00:00.000Z' };

describe.each(dialects)('conversation list on %s', (dialect) => {
  let database: TestDatabase;
  let tenant: Tenant;
  const threads: Record<string, string> = {};

  /** A thread as the assistant stores it: `updated_at` its last question's time, written a moment before. */
  const thread = async (name: string, questions: Asked[], updatedAt?: string) => {
    const id = newId('thr');
    threads[name] = id;
    const last = questions.at(-1)?.at ?? DAY.from;
    await database.storage.db
      .insertInto('threads')
      .values({
        id,
        organization_id: tenant.organization.id,
        site_id: tenant.site.id,
        fp: 'reader',
        key_hash: id,
        created_at: questions[0]?.at ?? last,
        updated_at: updatedAt ?? last,
      })
      .execute();
    let seq = 0;
    for (const q of questions) {
      const answerAt = new Date(Date.parse(q.at) + 2000).toISOString();
      const message = { thread_id: id, status: 'complete' as const, sources: '[]', request_id: null };
      await database.storage.db
        .insertInto('thread_messages')
        .values([
          {
            ...message,
            id: newId('msg'),
            seq: seq++,
            role: 'user',
            content: q.text ?? name,
            created_at: q.at,
          },
          {
            ...message,
            id: newId('msg'),
            seq: seq++,
            role: 'assistant',
            content: 'an answer',
            created_at: answerAt,
            answered: q.answered ? 1 : 0,
          },
        ])
        .execute();
    }
  };

  const listed = async (filter: AnalyticsFilter, limit = 100) => {
    const names = Object.fromEntries(Object.entries(threads).map(([name, id]) => [id, name]));
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await listConversations(database.storage, tenant.organization.id, filter, {
        limit,
        ...(cursor === undefined ? {} : { cursor }),
      });
      seen.push(...page.items.map((item) => names[item.threadId] ?? item.threadId));
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
    return seen;
  };

  const exported = async (filter: AnalyticsFilter) => {
    const names = Object.fromEntries(Object.entries(threads).map(([name, id]) => [id, name]));
    let text = '';
    for await (const chunk of exportConversations(database.storage, tenant.organization.id, filter, 'jsonl'))
      text += chunk;
    const ids = text
      .trim()
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => (JSON.parse(line) as { threadId: string }).threadId);
    return [...new Set(ids)].map((id) => names[id] ?? id);
  };

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    tenant = await createTenant(database.storage, { domain: 'acme' });
    // Asked on the day, followed up the next: its last activity is after the range.
    await thread('followed-up', [
      { at: '2026-03-10T10:00:00.000Z', answered: true },
      { at: '2026-03-11T09:00:00.000Z', answered: true },
    ]);
    // A new thread's updated_at is written a few milliseconds before its first question.
    await thread(
      'at-midnight',
      [{ at: '2026-03-10T00:00:00.001Z', answered: true }],
      '2026-03-09T23:59:59.998Z',
    );
    // Unanswered eight days before, answered on the day.
    await thread('old-gap', [
      { at: '2026-03-02T10:00:00.000Z', answered: false },
      { at: '2026-03-10T12:00:00.000Z', answered: true },
    ]);
    // Asked the day before only.
    await thread('day-before', [{ at: '2026-03-09T23:00:00.000Z', answered: false }]);
    // Threads last active at the same instant, for paging.
    for (const name of ['tie-1', 'tie-2', 'tie-3', 'tie-4', 'tie-5'])
      await thread(name, [{ at: '2026-03-10T15:00:00.000Z', answered: true }]);
    // Turkish dotted capital I: JavaScript lowercases it to i and a combining dot, PostgreSQL to i.
    await thread('dotted', [
      { at: '2026-03-21T10:00:00.000Z', text: 'İstanbul ofisinde kurulum', answered: true },
    ]);
    await thread('accents', [
      { at: '2026-03-20T10:00:00.000Z', text: "Comment changer l'ÉCRAN d'accueil ?", answered: false },
    ]);
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('lists the threads with a question asked in the range, whatever their last activity', async () => {
    const all = await listed(DAY);
    expect(all.sort()).toEqual(
      ['at-midnight', 'followed-up', 'old-gap', 'tie-1', 'tie-2', 'tie-3', 'tie-4', 'tie-5'].sort(),
    );
    expect((await exported(DAY)).sort()).toEqual(all.sort());
    // The next day lists the follow-up too, the day before its own thread only.
    const next = { from: DAY.to, to: '2026-03-12T00:00:00.000Z' };
    expect(await listed(next)).toEqual(['followed-up']);
    expect(await listed({ from: '2026-03-09T00:00:00.000Z', to: DAY.from })).toEqual(['day-before']);
  });

  it('applies the filters to the questions of the range only', async () => {
    expect(await listed({ ...DAY, answered: 'unanswered' })).toEqual([]);
    expect(await exported({ ...DAY, answered: 'unanswered' })).toEqual([]);
    expect(await listed({ ...DAY, q: 'old-gap' })).toEqual(['old-gap']);
    const week = { from: '2026-03-02T00:00:00.000Z', to: DAY.to };
    expect((await listed({ ...week, answered: 'unanswered' })).sort()).toEqual(['day-before', 'old-gap']);
  });

  it('searches words case-insensitively beyond ASCII', async () => {
    const march20 = { from: '2026-03-20T00:00:00.000Z', to: '2026-03-21T00:00:00.000Z' };
    for (const q of ['ÉCRAN', 'écran', 'Écran', "l'écran d'accueil"]) {
      expect(await listed({ ...march20, q }), q).toEqual(['accents']);
      const overview = await analyticsOverview(database.storage, tenant.organization.id, { ...march20, q });
      expect(overview.questions, q).toBe(1);
    }
    expect(await listed({ ...march20, q: 'ecran' })).toEqual([]);
    // Words, not a phrase: in any order, with any spaces between them; every one must be there.
    for (const q of ["d'accueil ÉCRAN", '  changer   accueil ', 'accueil\tcomment'])
      expect(await listed({ ...march20, q }), q).toEqual(['accents']);
    expect(await listed({ ...march20, q: 'écran maison' })).toEqual([]);
    // The words as the question spells them find it on both databases, whatever their lower() makes of them.
    const march21 = { from: '2026-03-21T00:00:00.000Z', to: '2026-03-22T00:00:00.000Z' };
    for (const q of ['İstanbul', 'İSTANBUL', 'kurulum İstanbul']) {
      expect(await listed({ ...march21, q }), q).toEqual(['dotted']);
      const overview = await analyticsOverview(database.storage, tenant.organization.id, { ...march21, q });
      expect(overview.questions, q).toBe(1);
    }
  });

  it('pages threads that share their last activity without losing or repeating one', async () => {
    const paged = await listed(DAY, 2);
    expect(paged).toEqual(await listed(DAY));
    expect(new Set(paged).size).toBe(paged.length);
    expect(paged.filter((name) => name.startsWith('tie-'))).toHaveLength(5);
  });

  it('exports every thread once while readers keep asking in threads not exported yet', async () => {
    // More threads than one batch, on a day of their own; the export reads them a batch at a time.
    const day = { from: '2026-04-01T00:00:00.000Z', to: '2026-04-02T00:00:00.000Z' };
    const names: string[] = [];
    for (let i = 0; i < EXPORT_THREAD_BATCH + 5; i++) {
      const at = new Date(Date.parse(day.from) + 60_000 * (i + 1)).toISOString();
      names.push(`busy-${i}`);
      await thread(`busy-${i}`, [{ at, answered: true }]);
    }
    const ids = new Set<string>();
    let batches = 0;
    for await (const chunk of exportConversations(database.storage, tenant.organization.id, day, 'jsonl')) {
      for (const line of chunk.split('\n').filter((l) => l !== ''))
        ids.add((JSON.parse(line) as { threadId: string }).threadId);
      if (batches++ > 0) continue;
      // After the first batch, a reader asks again in the oldest thread, which the export has not reached.
      const oldest = threads['busy-0'] as string;
      const at = '2026-04-01T23:00:00.000Z';
      await database.storage.db
        .insertInto('thread_messages')
        .values({
          id: newId('msg'),
          thread_id: oldest,
          seq: 2,
          role: 'user',
          content: 'and then?',
          status: 'complete',
          sources: '[]',
          request_id: null,
          created_at: at,
        })
        .execute();
      await database.storage.db
        .updateTable('threads')
        .set({ updated_at: at })
        .where('id', '=', oldest)
        .execute();
    }
    expect(batches).toBeGreaterThan(1);
    expect([...ids].map((id) => Object.entries(threads).find(([, v]) => v === id)?.[0]).sort()).toEqual(
      names.sort(),
    );
  });
});
