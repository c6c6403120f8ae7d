/**
 * The admin analytics routes over seeded data of two organizations: every route answers its own
 * organization only (another's site, thread or vote is a 404, its data never appears), refuses bad
 * filters with 400, pages without loss or repeats, and is documented in the OpenAPI document.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { createApp } from '../../../app.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../../../testing/databases.ts';
import {
  type SeededAnalytics,
  type SeededOrganization,
  seedAnalytics,
} from '../../../testing/seed-analytics.ts';
import { createTestApp } from '../../../testing/test-app.ts';

type Json = Record<string, unknown> & { error?: { code: string; details?: { path: string }[] } };

/** Every GET route with the filter, and what in its body names the data it shows. */
const LISTINGS = [
  '/v1/admin/analytics/overview',
  '/v1/admin/analytics/conversations',
  '/v1/admin/analytics/gaps',
  '/v1/admin/analytics/questions',
  '/v1/admin/analytics/pages',
  '/v1/admin/analytics/feedback',
  '/v1/admin/analytics/export/conversations.csv',
  '/v1/admin/analytics/export/conversations.jsonl',
  '/v1/admin/analytics/export/feedback.csv',
  '/v1/admin/analytics/export/feedback.jsonl',
];
const PAGED = LISTINGS.slice(1, 4).concat('/v1/admin/analytics/feedback');

describe.each(dialects)('admin analytics API on %s', (dialect) => {
  let database: TestDatabase;
  let app: ReturnType<typeof createApp>;
  let seeded: SeededAnalytics;
  let a: SeededOrganization;
  let b: SeededOrganization;
  /** Every thread id of B: none may appear in anything A is shown. */
  let bThreads: string[];
  const now = new Date();

  const call = async (method: string, url: string, key: string, body?: unknown) => {
    const response = await app.request(url, {
      method,
      headers: {
        Authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    const json = (
      /^application\/json(;|$)/.test(response.headers.get('Content-Type') ?? '') ? JSON.parse(text) : {}
    ) as Json;
    return { status: response.status, text, json, headers: response.headers };
  };

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    const { storage } = database;
    app = createTestApp(storage);
    seeded = await seedAnalytics(storage, { organizations: 2, threadsPerOrganization: 120, now, days: 20 });
    [a, b] = seeded.organizations as [SeededOrganization, SeededOrganization];
    bThreads = (
      await storage.db
        .selectFrom('threads')
        .select('id')
        .where('organization_id', '=', b.organization.id)
        .execute()
    ).map((t) => t.id);
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('answers every route for the organization, with none of the other organization’s data', async () => {
    for (const route of LISTINGS) {
      const response = await call('GET', `${route}?period=30d`, a.adminKey);
      expect(response.status, `${route}: ${response.text.slice(0, 200)}`).toBe(200);
      for (const id of bThreads) expect(response.text, route).not.toContain(id);
      expect(response.text, route).not.toContain('seed-b');
    }
    const overview = await call('GET', '/v1/admin/analytics/overview?period=30d', a.adminKey);
    expect(overview.json.questions).toBeGreaterThan(100);
    expect(Number(overview.json.answered) + Number(overview.json.unanswered)).toBe(overview.json.questions);
    // Daily buckets of the 30 days ending at the next whole hour: parts of 31 calendar days (UTC).
    expect((overview.json.series as unknown[]).length).toBe(now.getUTCHours() === 23 ? 30 : 31);
  });

  it("treats another organization's site as unknown (404) on every route", async () => {
    for (const route of LISTINGS) {
      const response = await call('GET', `${route}?site=seed-b`, a.adminKey);
      expect(response.status, route).toBe(404);
      expect(response.json.error?.code).toBe('not_found');
    }
    expect((await call('GET', '/v1/admin/analytics/overview?site=seed-a', a.adminKey)).status).toBe(200);
  });

  it("cannot delete another organization's thread, nor resolve its votes", async () => {
    const thread = bThreads[0] ?? '';
    expect((await call('DELETE', `/v1/admin/threads/${thread}`, a.adminKey)).status).toBe(404);
    const theirs = await call('GET', '/v1/admin/analytics/feedback?period=30d', b.adminKey);
    const [vote] = theirs.json.items as { messageId: string; fpHash: string }[];
    expect(vote).toBeDefined();
    const resolve = { messageId: vote?.messageId, fpHash: vote?.fpHash, resolved: true };
    expect((await call('POST', '/v1/admin/analytics/feedback/resolve', a.adminKey, resolve)).status).toBe(
      404,
    );
    expect((await call('POST', '/v1/admin/analytics/feedback/resolve', b.adminKey, resolve)).status).toBe(
      200,
    );
    const wrongHash = { ...resolve, fpHash: '000000000000' };
    expect((await call('POST', '/v1/admin/analytics/feedback/resolve', b.adminKey, wrongHash)).status).toBe(
      404,
    );
  });

  it('reads a day as its start in from and its end in to (UTC), as the usage route reads its days', async () => {
    const oneDay = await call(
      'GET',
      '/v1/admin/analytics/overview?from=2025-01-01&to=2025-01-01',
      a.adminKey,
    );
    expect(oneDay.status).toBe(200);
    const series = oneDay.json.series as { start: string }[];
    expect(oneDay.json.bucket).toBe('hour');
    expect(series).toHaveLength(24);
    expect(series[0]?.start).toBe('2025-01-01T00:00:00.000Z');
    expect(series[23]?.start).toBe('2025-01-01T23:00:00.000Z');
    const november = await call(
      'GET',
      '/v1/admin/analytics/overview?from=2025-11-01&to=2025-11-30',
      a.adminKey,
    );
    expect(november.json.bucket).toBe('day');
    expect((november.json.series as unknown[]).length).toBe(30);
  });

  it('refuses bad filters with 400 and the field that is wrong', async () => {
    const cases: [string, string][] = [
      ['period=1y', 'period'],
      ['period=7d&from=2025-01-01T00:00:00Z&to=2025-01-02T00:00:00Z', 'period'],
      ['from=2025-01-01T00:00:00Z', 'to'],
      ['from=2025-01-02T00:00:00Z&to=2025-01-01T00:00:00Z', 'to'],
      ['from=2020-01-01T00:00:00Z&to=2025-01-01T00:00:00Z', 'to'],
      ['from=yesterday&to=today', 'from'],
      ['from=2025-02-30&to=2025-03-01', 'from'],
      ['from=2025-01-01T00:00&to=2025-01-02T00:00', 'from'],
      ['answered=maybe', 'answered'],
      ['feedback=sideways', 'feedback'],
      [`page=${'p'.repeat(201)}`, 'page'],
      ['site=Not%20A%20Domain', 'site'],
      ['colour=blue', ''],
    ];
    for (const route of LISTINGS)
      for (const [query, path] of cases) {
        const response = await call('GET', `${route}?${query}`, a.adminKey);
        expect(response.status, `${route}?${query}`).toBe(400);
        expect(response.json.error?.code).toBe('invalid_request');
        if (path !== '') expect(response.json.error?.details?.map((d) => d.path)).toContain(path);
      }
    for (const route of PAGED) {
      for (const query of ['limit=0', 'limit=100000', 'cursor=%21%21', `cursor=${'A'.repeat(600)}`])
        expect((await call('GET', `${route}?${query}`, a.adminKey)).status, `${route}?${query}`).toBe(400);
      // A cursor that decodes but is not one this listing gave out.
      const forged = Buffer.from(JSON.stringify([1, 2, 3, 4, 5])).toString('base64url');
      expect((await call('GET', `${route}?cursor=${forged}`, a.adminKey)).status, route).toBe(400);
    }
    // Of the right shape, but with a NUL, which PostgreSQL text cannot hold (a 500 there, not a page).
    const withNul = {
      '/v1/admin/analytics/conversations': ['2026-01-01T00:00:00.000Z', 'thr_\u0000'],
      '/v1/admin/analytics/gaps': [1, 2, 'grp_\u0000'],
      '/v1/admin/analytics/questions': [1, 2, 'grp_\u0000'],
      '/v1/admin/analytics/feedback': ['2026-01-01T00:00:00.000Z', 'msg_\u0000', 1],
    };
    for (const [route, key] of Object.entries(withNul)) {
      const cursor = Buffer.from(JSON.stringify(key)).toString('base64url');
      const response = await call('GET', `${route}?cursor=${cursor}`, a.adminKey);
      expect(response.status, route).toBe(400);
    }
    // Counts no page gave out (PostgreSQL compares them with a bigint count: a 500 there, not a page).
    for (const route of ['/v1/admin/analytics/gaps', '/v1/admin/analytics/questions'])
      for (const key of [
        [1e308, 2, 'grp_x'],
        [1.5, 2, 'grp_x'],
        [1, -1, 'grp_x'],
      ]) {
        const cursor = Buffer.from(JSON.stringify(key)).toString('base64url');
        const response = await call('GET', `${route}?cursor=${cursor}`, a.adminKey);
        expect(response.status, `${route} ${JSON.stringify(key)}`).toBe(400);
      }
    expect((await call('GET', '/v1/admin/analytics/feedback?resolved=maybe', a.adminKey)).status).toBe(400);
    // A NUL in a query parameter is named as the query's, not the body's.
    const nul = await call('GET', '/v1/admin/analytics/conversations?page=%00', a.adminKey);
    expect(nul.json.error).toMatchObject({ message: 'Invalid query', details: [{ path: 'page' }] });
  });

  it('pages through conversations, groups and votes without losing or repeating one', async () => {
    for (const [route, key, total] of [
      ['/v1/admin/analytics/conversations', 'threadId', 'conversations'],
      ['/v1/admin/analytics/questions', 'groupId', 'groups'],
      ['/v1/admin/analytics/gaps', 'groupId', 'gaps'],
      ['/v1/admin/analytics/feedback', 'messageId', 'votes'],
    ] as const) {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await call(
          'GET',
          `${route}?period=30d&limit=7${cursor === null ? '' : `&cursor=${cursor}`}`,
          a.adminKey,
        );
        expect(page.status, total).toBe(200);
        const items = page.json.items as Record<string, string>[];
        expect(items.length).toBeLessThanOrEqual(7);
        // Votes are one per answer and reader: the pair is the identity.
        for (const item of items)
          seen.push(key === 'messageId' ? `${item.messageId}/${item.fpHash}` : (item[key] ?? ''));
        cursor = page.json.nextCursor as string | null;
      } while (cursor !== null);
      const all = await call(
        'GET',
        `${route}?period=30d&limit=${route.endsWith('conversations') ? 100 : 50}`,
        a.adminKey,
      );
      expect(new Set(seen).size, total).toBe(seen.length);
      expect(seen.length, total).toBeGreaterThan(0);
      if (all.json.nextCursor === null) expect(seen.length, total).toBe((all.json.items as unknown[]).length);
    }
  });

  it('orders gaps by unanswered questions and top questions by count', async () => {
    const gaps = (await call('GET', '/v1/admin/analytics/gaps?period=30d&limit=50', a.adminKey)).json
      .items as {
      unanswered: number;
      count: number;
    }[];
    for (const [i, g] of gaps.entries()) {
      expect(g.unanswered).toBeGreaterThanOrEqual(1);
      if (i > 0) expect(g.unanswered).toBeLessThanOrEqual(gaps[i - 1]?.unanswered ?? 0);
    }
    const top = (await call('GET', '/v1/admin/analytics/questions?period=30d&limit=50', a.adminKey)).json
      .items as {
      count: number;
      examples: string[];
    }[];
    for (const [i, g] of top.entries()) {
      if (i > 0) expect(g.count).toBeLessThanOrEqual(top[i - 1]?.count ?? 0);
      expect(g.examples.length).toBeGreaterThan(0);
      expect(g.examples.length).toBeLessThanOrEqual(3);
    }
  });

  it('streams exports as attachments, one message or vote per row', async () => {
    const csv = await call('GET', '/v1/admin/analytics/export/feedback.csv?period=30d', a.adminKey);
    expect(csv.headers.get('Content-Type')).toBe('text/csv; charset=utf-8');
    // A byte order mark first, or Excel reads the UTF-8 of a French or Chinese question as mojibake.
    for (const file of ['feedback', 'conversations']) {
      const raw = await app.request(`/v1/admin/analytics/export/${file}.csv?period=30d`, {
        headers: { Authorization: `Bearer ${a.adminKey}` },
      });
      expect([...new Uint8Array(await raw.arrayBuffer()).slice(0, 3)], file).toEqual([0xef, 0xbb, 0xbf]);
    }
    expect(csv.headers.get('Content-Disposition')).toMatch(
      /^attachment; filename="feedback-[\d-]+-[\d-]+\.csv"$/,
    );
    const jsonl = await call('GET', '/v1/admin/analytics/export/feedback.jsonl?period=30d', a.adminKey);
    const lines = jsonl.text.trim().split('\n');
    const inbox = [];
    let cursor: string | null = null;
    do {
      const page = await call(
        'GET',
        `/v1/admin/analytics/feedback?period=30d&limit=100${cursor ? `&cursor=${cursor}` : ''}`,
        a.adminKey,
      );
      inbox.push(...(page.json.items as unknown[]));
      cursor = page.json.nextCursor as string | null;
    } while (cursor !== null);
    expect(lines.map((line) => JSON.parse(line))).toEqual(inbox);
    const conversations = await call(
      'GET',
      '/v1/admin/analytics/export/conversations.jsonl?period=30d',
      a.adminKey,
    );
    const rows = conversations.text
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { role: string; fpHash: string });
    expect(rows.length).toBeGreaterThan(200);
    expect(new Set(rows.map((r) => r.role))).toEqual(new Set(['user', 'assistant']));
    expect(conversations.text).not.toContain('"fp"');
  });

  it('exports the votes the listing shows for resolved=true or false', async () => {
    const open = await call('GET', '/v1/admin/analytics/feedback?period=30d&limit=2', a.adminKey);
    const [vote] = open.json.items as { messageId: string; fpHash: string }[];
    const resolve = { messageId: vote?.messageId, fpHash: vote?.fpHash, resolved: true };
    expect((await call('POST', '/v1/admin/analytics/feedback/resolve', a.adminKey, resolve)).status).toBe(
      200,
    );
    for (const resolved of ['true', 'false']) {
      const listing = await call(
        'GET',
        `/v1/admin/analytics/feedback?period=30d&limit=100&resolved=${resolved}`,
        a.adminKey,
      );
      expect(listing.json.nextCursor).toBeNull();
      const jsonl = await call(
        'GET',
        `/v1/admin/analytics/export/feedback.jsonl?period=30d&resolved=${resolved}`,
        a.adminKey,
      );
      expect(jsonl.status, jsonl.text).toBe(200);
      const lines = jsonl.text.trim() === '' ? [] : jsonl.text.trim().split('\n');
      expect(lines.map((line) => JSON.parse(line))).toEqual(listing.json.items);
      const exported = lines.map((line) => JSON.parse(line) as { messageId: string; fpHash: string });
      expect(exported.some((v) => v.messageId === vote?.messageId && v.fpHash === vote?.fpHash)).toBe(
        resolved === 'true',
      );
      const csv = await call(
        'GET',
        `/v1/admin/analytics/export/feedback.csv?period=30d&resolved=${resolved}`,
        a.adminKey,
      );
      expect(csv.text.trim().split('\r\n')).toHaveLength(lines.length + 1);
    }
    expect(
      (await call('GET', '/v1/admin/analytics/export/feedback.csv?resolved=maybe', a.adminKey)).status,
    ).toBe(400);
    // Threads are not resolved: the conversations export refuses it as any unknown parameter.
    const conversations = await call(
      'GET',
      '/v1/admin/analytics/export/conversations.csv?resolved=true',
      a.adminKey,
    );
    expect(conversations.status).toBe(400);
  });

  it('sets and reads the retention per organization', async () => {
    expect((await call('GET', '/v1/admin/organization/retention', a.adminKey)).json).toEqual({ days: null });
    expect((await call('PUT', '/v1/admin/organization/retention', a.adminKey, { days: 30 })).json).toEqual({
      days: 30,
    });
    expect((await call('GET', '/v1/admin/organization/retention', a.adminKey)).json).toEqual({ days: 30 });
    expect((await call('GET', '/v1/admin/organization/retention', b.adminKey)).json).toEqual({ days: null });
    for (const body of [
      { days: 0 },
      { days: 3651 },
      { days: 1.5 },
      { days: '30' },
      {},
      { days: 30, extra: 1 },
    ])
      expect(
        (await call('PUT', '/v1/admin/organization/retention', a.adminKey, body)).status,
        JSON.stringify(body),
      ).toBe(400);
    expect((await call('PUT', '/v1/admin/organization/retention', a.adminKey, { days: null })).json).toEqual({
      days: null,
    });
  });

  it('documents every analytics route in the OpenAPI document', async () => {
    const document = (await (await app.request('/openapi.json')).json()) as {
      paths: Record<string, unknown>;
    };
    for (const path of [
      ...LISTINGS,
      '/v1/admin/analytics/feedback/resolve',
      '/v1/admin/threads/{id}',
      '/v1/admin/organization/retention',
    ])
      expect(Object.keys(document.paths)).toContain(path);
  });
});
