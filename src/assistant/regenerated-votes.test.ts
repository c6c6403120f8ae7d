import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteConversation, listConversations } from '../analytics/conversations.ts';
import { exportConversations, exportFeedback } from '../analytics/export.ts';
import { listFeedback } from '../analytics/feedback-inbox.ts';
import { analyticsOverview } from '../analytics/overview.ts';
import { deleteExpiredThreads, setRetentionDays } from '../analytics/retention.ts';
import { withWriteUnit } from '../storage/write-unit.ts';
import { createOrganization } from '../tenancy/organizations.ts';
import { createSite, type Site } from '../tenancy/sites.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../testing/databases.ts';
import { listThreadFeedback, recordFeedback } from './feedback.ts';
import { appendQuestionWithin, createThread, listThreadMessages, storeAnswerWithin } from './threads.ts';

/**
 * A reader marks an answer "Not helpful" with a comment, then tries again (a regenerate): the new answer
 * replaces the old one, and the vote stays, with the old answer's text, everywhere the owner reads votes
 * (documented in docs/api-reference/assistant-feedback.mdx), until the conversation is deleted.
 */
describe.each(dialects)('votes on a regenerated answer on %s', (dialect) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase(dialect);
  });
  afterAll(async () => {
    await db?.drop();
  });

  const hour = 3_600_000;
  const range = () => ({
    from: new Date(Date.now() - hour).toISOString(),
    to: new Date(Date.now() + hour).toISOString(),
  });

  /** An organization and site of its own, a thread with one question answered (request `req_1`). */
  async function answeredThread() {
    const organizationId = (await createOrganization(db.storage, { name: 'Acme' })).id;
    const site: Site = await createSite(db.storage, {
      organizationId,
      domain: `acme-${Math.random().toString(36).slice(2)}`,
    });
    const { thread, key } = await createThread(db.storage, { organizationId, siteId: site.id, fp: 'reader' });
    const question = await withWriteUnit(db.storage, {}, (unit) =>
      appendQuestionWithin(unit, thread.id, { content: 'How do I rotate keys?', status: 'complete' }),
    );
    const answer = (content: string, requestId: string) =>
      withWriteUnit(db.storage, {}, (unit) =>
        storeAnswerWithin(unit, thread.id, question.seq, { content, status: 'complete', requestId }),
      );
    expect(await answer('A vague answer.', 'req_1')).toBe('stored');
    const answerId = async () => {
      const messages = await listThreadMessages(db.storage, thread.id);
      return messages.find((m) => m.role === 'assistant')?.id ?? '';
    };
    const vote = async (messageId: string, rating: 'up' | 'down', comment?: string) =>
      recordFeedback(db.storage, {
        site,
        fp: 'reader',
        threadId: thread.id,
        threadKey: key,
        messageId,
        rating,
        comment,
      });
    return { organizationId, threadId: thread.id, answer, answerId, vote };
  }

  it('keeps the vote and comment in the inbox, the counts, the transcript and the export', async () => {
    const t = await answeredThread();
    const first = await t.answerId();
    await t.vote(first, 'down', 'Too vague.');
    expect(await t.answer('A better answer.', 'req_2')).toBe('stored');
    const second = await t.answerId();
    expect(second).not.toBe(first);

    const inbox = await listFeedback(db.storage, t.organizationId, range(), { limit: 10 });
    expect(inbox.items).toMatchObject([
      {
        messageId: first,
        threadId: t.threadId,
        rating: 'down',
        comment: 'Too vague.',
        question: 'How do I rotate keys?',
        answer: 'A vague answer.',
        regenerated: true,
      },
    ]);
    const overview = await analyticsOverview(db.storage, t.organizationId, range());
    expect({ questions: overview.questions, up: overview.feedbackUp, down: overview.feedbackDown }).toEqual({
      questions: 1,
      up: 0,
      down: 1,
    });
    // The question is found by its votes, whichever answer they were given.
    const down = await analyticsOverview(db.storage, t.organizationId, { ...range(), feedback: 'down' });
    expect(down.questions).toBe(1);
    const conversations = await listConversations(db.storage, t.organizationId, range(), { limit: 10 });
    expect(conversations.items.map((c) => c.feedbackDown)).toEqual([1]);
    const transcript = await listThreadFeedback(db.storage, t.threadId);
    expect(transcript.get(second)).toMatchObject([
      { rating: 'down', comment: 'Too vague.', regeneratedAnswer: 'A vague answer.' },
    ]);
    let jsonl = '';
    for await (const chunk of exportFeedback(db.storage, t.organizationId, range(), 'jsonl')) jsonl += chunk;
    expect(
      jsonl
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toMatchObject([
      { messageId: first, comment: 'Too vague.', answer: 'A vague answer.', regenerated: true },
    ]);
    // The conversation export counts it on the answer now in its place, as the listing does.
    let rows = '';
    for await (const chunk of exportConversations(db.storage, t.organizationId, range(), 'jsonl'))
      rows += chunk;
    expect(
      rows
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line))
        .map((row) => [row.role, row.messageId, row.feedbackUp, row.feedbackDown]),
    ).toEqual([
      ['user', expect.any(String), null, null],
      ['assistant', second, 0, 1],
    ]);

    // The replaced answer takes no new vote; the new one does, as its own.
    await expect(t.vote(first, 'up')).rejects.toMatchObject({ kind: 'not_found' });
    await t.vote(second, 'up');
    // Regenerated again: both votes stay, each with the answer it was given.
    expect(await t.answer('A third answer.', 'req_3')).toBe('stored');
    const after = await listFeedback(db.storage, t.organizationId, range(), { limit: 10 });
    expect(after.items.map((i) => [i.rating, i.answer, i.regenerated, i.question]).sort()).toEqual([
      ['down', 'A vague answer.', true, 'How do I rotate keys?'],
      ['up', 'A better answer.', true, 'How do I rotate keys?'],
    ]);
    const counts = await analyticsOverview(db.storage, t.organizationId, range());
    expect([counts.feedbackUp, counts.feedbackDown]).toEqual([1, 1]);

    // Deleting the conversation deletes its votes, kept ones included.
    expect(await deleteConversation(db.storage, t.organizationId, t.threadId)).toBe(true);
    expect((await listFeedback(db.storage, t.organizationId, range(), { limit: 10 })).items).toEqual([]);
    const left = await db.storage.db
      .selectFrom('message_feedback')
      .select('fp')
      .where('thread_id', '=', t.threadId)
      .execute();
    expect(left).toEqual([]);
  });

  it('lets retention delete the kept votes with their conversation', async () => {
    const t = await answeredThread();
    await t.vote(await t.answerId(), 'down', 'Wrong page.');
    expect(await t.answer('Another answer.', 'req_2')).toBe('stored');
    await setRetentionDays(db.storage, t.organizationId, 1);
    await deleteExpiredThreads(db.storage, new Date(Date.now() + 3 * 24 * hour));
    const left = await db.storage.db
      .selectFrom('message_feedback')
      .select('fp')
      .where('organization_id', '=', t.organizationId)
      .execute();
    expect(left).toEqual([]);
  });
});
