/**
 * Real answers into the owner's analytics: questions asked through the v1 and v2 endpoints of a running
 * server are stored with where and how they were asked, their group, and whether they were answered;
 * the admin analytics routes then show them, and only to their own organization.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIN_RETRIEVAL_STRENGTH } from '../../../assistant/retrieval-strength.ts';
import { ingestSite } from '../../../ingest/ingest-site.ts';
import { createTenant, type Tenant } from '../../../limits/limits-fixtures.ts';
import { dialects } from '../../../testing/databases.ts';
import { startTestServer, type TestServer } from '../../../testing/server.ts';
import { smallDocs } from '../../../testing/small-docs.ts';

interface Asked {
  messageId: string;
  threadId: string;
  threadKey: string;
}

type Json = Record<string, unknown>;

describe.each(dialects)('analytics of real answers on %s', (dialect) => {
  let server: TestServer;
  let acme: Tenant;
  let other: Tenant;

  /** Asks on v2 (the widget's wire) and returns the answer's ids from its `start` chunk. */
  const askV2 = async (tenant: Tenant, text: string, extra: Json = {}): Promise<Asked> => {
    const response = await fetch(`${server.baseUrl}/v2/assistant/${tenant.site.domain}/message`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${tenant.assistantKey}` },
      body: JSON.stringify({
        fp: 'reader-1',
        messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text }] }],
        ...extra,
      }),
    });
    const body = await response.text();
    expect(response.status, body).toBe(200);
    const start = body
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice('data: '.length)) as Json)
      .find((chunk) => chunk.type === 'start') as
      | { messageId: string; messageMetadata: { threadId: string; threadKey?: string } }
      | undefined;
    if (!start) throw new Error(`no start chunk in ${body}`);
    return {
      messageId: start.messageId,
      threadId: start.messageMetadata.threadId,
      threadKey: start.messageMetadata.threadKey ?? '',
    };
  };

  /** Asks on v1 (AI SDK 4's wire); returns the thread id. */
  const askV1 = async (tenant: Tenant, text: string, extra: Json = {}): Promise<string> => {
    const response = await fetch(`${server.baseUrl}/v1/assistant/${tenant.site.domain}/message`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${tenant.assistantKey}` },
      body: JSON.stringify({
        fp: 'reader-2',
        messages: [{ id: 'u1', role: 'user', content: text, parts: [{ type: 'text', text }] }],
        ...extra,
      }),
    });
    await response.text();
    expect(response.status).toBe(200);
    return response.headers.get('X-Thread-Id') ?? '';
  };

  const admin = async (path: string, tenant = acme, init: RequestInit = {}) => {
    const response = await fetch(`${server.baseUrl}${path}`, {
      ...init,
      headers: {
        Authorization: `Bearer ${tenant.adminKey}`,
        'Content-Type': 'application/json',
        ...init.headers,
      },
    });
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      text,
      json: (text.startsWith('{') ? JSON.parse(text) : {}) as Json,
    };
  };

  const messagesOf = (threadId: string) =>
    server.storage.db
      .selectFrom('thread_messages')
      .selectAll()
      .where('thread_id', '=', threadId)
      .orderBy('seq')
      .execute();

  let covered: Asked;
  let paraphrase: string;
  let uncovered: Asked;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    acme = await createTenant(server.storage, { domain: 'acme' });
    other = await createTenant(server.storage, { domain: 'other' });
    const docs = smallDocs();
    await ingestSite(server.storage, acme.site.id, docs);
    await ingestSite(server.storage, other.site.id, docs);
    covered = await askV2(acme, 'How do I rotate an API key?', {
      currentPath: '/keys',
      filter: { version: 'v2', language: 'en' },
    });
    paraphrase = await askV1(acme, 'how to rotate api keys', { currentPath: '/billing' });
    uncovered = await askV2(acme, 'Does Acme support SAML single sign-on with Okta?');
    // The other organization asks the same things: none of it may show in acme's analytics.
    await askV2(other, 'How do I rotate an API key?', { currentPath: '/keys' });
    await askV2(other, 'Does Acme support SAML single sign-on with Okta?');
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('stores where and how a question was asked, its group, and whether its answer answered', async () => {
    const [question, answer] = await messagesOf(covered.threadId);
    expect(question).toMatchObject({
      role: 'user',
      // The page id `/keys` names.
      current_path: 'keys',
      filter_version: 'v2',
      filter_language: 'en',
    });
    expect(question?.question_group_id).toMatch(/^qgr_/);
    expect(answer).toMatchObject({ role: 'assistant', answered: 1 });
    expect(Number(answer?.retrieval_score)).toBeGreaterThanOrEqual(MIN_RETRIEVAL_STRENGTH);

    // A paraphrase, on another wire and thread, joins the same group.
    const [again] = await messagesOf(paraphrase);
    expect(again?.question_group_id).toBe(question?.question_group_id);
    expect(again?.current_path).toBe('billing');

    // The docs do not cover single sign-on: the built-in answerer says so, and it is not answered.
    const [sso, declined] = await messagesOf(uncovered.threadId);
    expect(sso?.question_group_id).not.toBe(question?.question_group_id);
    expect(declined).toMatchObject({ answered: 0 });
    expect(Number(declined?.retrieval_score)).toBeLessThan(MIN_RETRIEVAL_STRENGTH);
  });

  it('counts them in the overview, for this organization only', async () => {
    const overview = await admin('/v1/admin/analytics/overview?period=24h');
    expect(overview.status).toBe(200);
    expect(overview.json).toMatchObject({ questions: 3, answered: 2, unanswered: 1, bucket: 'hour' });
    expect((overview.json.firstTokenMs as { p50: number }).p50).toBeGreaterThanOrEqual(0);
    expect(overview.json.creditsUsed).toBe(3);
    const theirs = await admin('/v1/admin/analytics/overview?period=24h', other);
    expect(theirs.json).toMatchObject({ questions: 2, unanswered: 1, creditsUsed: 2 });
  });

  it('lists the unanswered question as a gap, with the closest pages the site has', async () => {
    const gaps = await admin('/v1/admin/analytics/gaps?period=24h');
    expect(gaps.status).toBe(200);
    const items = gaps.json.items as {
      label: string;
      unanswered: number;
      closestPages: { path: string }[];
      site: string;
    }[];
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({
      label: 'Does Acme support SAML single sign-on with Okta?',
      unanswered: 1,
      site: 'acme',
    });
    const top = await admin('/v1/admin/analytics/questions?period=24h');
    const groups = top.json.items as {
      label: string;
      count: number;
      examples: string[];
      closestPages: { path: string }[];
    }[];
    expect(groups[0]).toMatchObject({ label: 'How do I rotate an API key?', count: 2 });
    expect(groups[0]?.examples).toEqual(['how to rotate api keys', 'How do I rotate an API key?']);
    expect(groups[0]?.closestPages[0]?.path).toBe('keys');
  });

  it('keeps greetings and thanks out of the topics: stored, not answered, in no group and no gap', async () => {
    // An organization of its own, so the counts the other tests check do not move.
    const greeter = await createTenant(server.storage, { domain: 'greeter' });
    await ingestSite(server.storage, greeter.site.id, smallDocs());
    const hello = await askV2(greeter, 'hi there!');
    const thanks = await askV1(greeter, 'thanks a lot');
    for (const threadId of [hello.threadId, thanks]) {
      const [question, answer] = await messagesOf(threadId);
      expect(question?.question_group_id).toBeNull();
      expect(answer).toMatchObject({ role: 'assistant', answered: 0 });
      expect(answer?.content).toMatch(/^(Hello!|You're welcome!)/);
    }
    expect((await admin('/v1/admin/analytics/gaps?period=24h', greeter)).json.items).toEqual([]);
    expect((await admin('/v1/admin/analytics/questions?period=24h', greeter)).json.items).toEqual([]);
    expect((await admin('/v1/admin/analytics/overview?period=24h', greeter)).json).toMatchObject({
      questions: 2,
      unanswered: 2,
    });
  });

  it('filters conversations by page, version, language, words and outcome', async () => {
    const ids = async (query: string) =>
      (
        (await admin(`/v1/admin/analytics/conversations?period=24h&${query}`)).json.items as {
          threadId: string;
        }[]
      ).map((i) => i.threadId);
    expect(await ids('page=keys')).toEqual([covered.threadId]);
    // Typed as a URL path, with its slashes.
    expect(await ids('page=%2Fkeys%2F')).toEqual([covered.threadId]);
    expect(await ids('version=v2&language=en')).toEqual([covered.threadId]);
    expect(await ids('q=SAML')).toEqual([uncovered.threadId]);
    expect(await ids('answered=unanswered')).toEqual([uncovered.threadId]);
    expect((await ids('answered=answered')).sort()).toEqual([covered.threadId, paraphrase].sort());
  });

  it("shows a reader's vote in the feedback inbox and the pages, and resolves it", async () => {
    const vote = await fetch(`${server.baseUrl}/v2/assistant/acme/feedback`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${acme.assistantKey}` },
      body: JSON.stringify({
        fp: 'reader-1',
        threadId: covered.threadId,
        messageId: covered.messageId,
        rating: 'down',
        comment: 'Too short',
      }),
    });
    expect(vote.status).toBe(200);
    const inbox = await admin('/v1/admin/analytics/feedback?period=24h');
    const [item] = inbox.json.items as {
      messageId: string;
      fpHash: string;
      comment: string;
      question: string;
      resolvedAt: string | null;
    }[];
    expect(item).toMatchObject({
      messageId: covered.messageId,
      comment: 'Too short',
      question: 'How do I rotate an API key?',
      resolvedAt: null,
    });
    expect(item?.fpHash).toMatch(/^[0-9a-f]{12}$/);
    expect(inbox.text).not.toContain('reader-1');
    expect((await admin('/v1/admin/analytics/feedback?period=24h', other)).json.items).toEqual([]);

    const pages = await admin('/v1/admin/analytics/pages?period=24h');
    const cited = (pages.json.mostCited as { path: string; citations: number; down: number }[]).find(
      (p) => p.path === 'keys',
    );
    expect(cited).toMatchObject({ citations: 2, down: 1 });

    const body = { messageId: covered.messageId, fpHash: item?.fpHash, resolved: true };
    // Another organization cannot resolve it.
    expect(
      (
        await admin('/v1/admin/analytics/feedback/resolve', other, {
          method: 'POST',
          body: JSON.stringify(body),
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await admin('/v1/admin/analytics/feedback/resolve', acme, {
          method: 'POST',
          body: JSON.stringify(body),
        })
      ).status,
    ).toBe(200);
    const resolved = await admin('/v1/admin/analytics/feedback?period=24h&resolved=true');
    expect((resolved.json.items as { resolvedAt: string | null }[])[0]?.resolvedAt).not.toBeNull();
  });

  it('exports the conversations, then deletes one for good', async () => {
    const csv = await admin('/v1/admin/analytics/export/conversations.csv?period=24h');
    expect(csv.status).toBe(200);
    expect(csv.headers.get('Content-Disposition')).toMatch(/^attachment; filename="conversations-.*\.csv"$/);
    expect(csv.text.split('\r\n')[0]).toMatch(/^threadId,site,fpHash,messageId/);
    expect(csv.text).toContain(covered.threadId);
    expect(csv.text.trim().split('\r\n')).toHaveLength(1 + 6);

    expect((await admin(`/v1/admin/threads/${covered.threadId}`, other, { method: 'DELETE' })).status).toBe(
      404,
    );
    expect((await admin(`/v1/admin/threads/${covered.threadId}`, acme, { method: 'DELETE' })).status).toBe(
      204,
    );
    expect(await messagesOf(covered.threadId)).toEqual([]);
    expect((await admin(`/v1/admin/threads/${covered.threadId}`)).status).toBe(404);
    // Its group lives on through the paraphrase, now labelled by it.
    const top = await admin('/v1/admin/analytics/questions?period=24h');
    const labels = (top.json.items as { label: string; count: number }[]).map((g) => [g.label, g.count]);
    expect(labels).toContainEqual(['how to rotate api keys', 1]);
    expect(labels.map(([label]) => label)).not.toContain('How do I rotate an API key?');
  });
});
