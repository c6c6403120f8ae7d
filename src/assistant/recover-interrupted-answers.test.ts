import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nowIso } from '../storage/ids.ts';
import { withWriteUnit } from '../storage/write-unit.ts';
import { createOrganization } from '../tenancy/organizations.ts';
import { createSite } from '../tenancy/sites.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../testing/databases.ts';
import { recoverInterruptedAnswers } from './recover-interrupted-answers.ts';
import { appendQuestionWithin, createThread, listThreadMessages, storeAnswerWithin } from './threads.ts';

describe.each(dialects)('recoverInterruptedAnswers on %s', (dialect) => {
  let db: TestDatabase;
  let organizationId: string;
  let siteId: string;

  beforeAll(async () => {
    db = await createTestDatabase(dialect);
    organizationId = (await createOrganization(db.storage, { name: 'Acme' })).id;
    siteId = (await createSite(db.storage, { organizationId, domain: 'acme' })).id;
  });
  afterAll(async () => {
    await db?.drop();
  });

  /** An answer in flight in `threadId` under an instance that no longer runs. */
  async function inFlight(
    threadId: string,
    row: { requestId: string; messageId: string | null; questionSeq?: number | null },
  ): Promise<void> {
    await db.storage.db
      .insertInto('answers_in_flight')
      .values({
        request_id: row.requestId,
        organization_id: organizationId,
        thread_id: threadId,
        instance_id: 'ins_dead',
        created_at: nowIso(),
        message_id: row.messageId,
        ...(row.questionSeq === undefined ? {} : { question_seq: row.questionSeq }),
      })
      .execute();
  }

  /** A thread with its question stored and its answer in flight under an instance that no longer runs. */
  async function interrupted(requestId: string, messageId: string | null): Promise<string> {
    const { thread } = await createThread(db.storage, { organizationId, siteId, fp: 'anonymous' });
    await withWriteUnit(db.storage, {}, (unit) =>
      appendQuestionWithin(unit, thread.id, { content: 'Why?', status: 'complete' }),
    );
    await inFlight(thread.id, { requestId, messageId });
    return thread.id;
  }

  it("stores the aborted answer in its question's place when the thread has gone on meanwhile", async () => {
    const { thread } = await createThread(db.storage, { organizationId, siteId, fp: 'anonymous' });
    const ask = (content: string) =>
      withWriteUnit(db.storage, {}, (unit) =>
        appendQuestionWithin(unit, thread.id, { content, status: 'complete' }),
      );
    const first = await ask('first');
    const second = await ask('second');
    await withWriteUnit(db.storage, {}, (unit) =>
      storeAnswerWithin(unit, thread.id, second.seq, { content: 'answer two', status: 'complete' }),
    );
    await inFlight(thread.id, { requestId: 'req_first', messageId: 'msg_first', questionSeq: first.seq });
    expect(await recoverInterruptedAnswers(db.storage, ['ins_dead'])).toMatchObject({ answers: 1 });
    const stored = await listThreadMessages(db.storage, thread.id);
    expect(stored.map((m) => `${m.role}:${m.content || m.status}`)).toEqual([
      'user:first',
      'assistant:aborted',
      'user:second',
      'assistant:answer two',
    ]);
    expect(stored[1]?.id).toBe('msg_first');
  });

  it("finds the question of a row without its place (an older Docent's) by its request id", async () => {
    const { thread } = await createThread(db.storage, { organizationId, siteId, fp: 'anonymous' });
    const ask = (content: string, requestId: string) =>
      withWriteUnit(db.storage, {}, (unit) =>
        appendQuestionWithin(unit, thread.id, { content, status: 'complete', requestId }),
      );
    await ask('first', 'req_old_first');
    await inFlight(thread.id, { requestId: 'req_old_first', messageId: 'msg_old_first', questionSeq: null });
    // A follow-up was asked before recovery ran: the thread's last question is no longer the one.
    const second = await ask('second', 'req_second');
    expect(await recoverInterruptedAnswers(db.storage, ['ins_dead'])).toMatchObject({ answers: 1 });
    await withWriteUnit(db.storage, {}, (unit) =>
      storeAnswerWithin(unit, thread.id, second.seq, {
        content: 'answer two',
        status: 'complete',
        requestId: 'req_second',
      }),
    );
    const stored = await listThreadMessages(db.storage, thread.id);
    expect(stored.map((m) => `${m.role}:${m.content || m.status}`)).toEqual([
      'user:first',
      'assistant:aborted',
      'user:second',
      'assistant:answer two',
    ]);
  });

  it('stores the aborted answer under the message id its reader was streamed', async () => {
    const streamed = await interrupted('req_streamed', 'msg_streamed');
    const older = await interrupted('req_older', null);
    expect(await recoverInterruptedAnswers(db.storage, ['ins_dead'])).toMatchObject({ answers: 2 });
    const [, answer] = await listThreadMessages(db.storage, streamed);
    expect(answer).toMatchObject({ id: 'msg_streamed', role: 'assistant', status: 'aborted' });
    // A row written before the message id was recorded still gets its answer, under a new id.
    const [, fallback] = await listThreadMessages(db.storage, older);
    expect(fallback).toMatchObject({
      id: expect.stringMatching(/^msg_/),
      role: 'assistant',
      status: 'aborted',
    });
  });
});
