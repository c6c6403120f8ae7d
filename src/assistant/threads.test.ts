import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withWriteUnit } from '../storage/write-unit.ts';
import { createOrganization } from '../tenancy/organizations.ts';
import { createSite } from '../tenancy/sites.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../testing/databases.ts';
import {
  appendQuestionWithin,
  createThread,
  listThreadMessages,
  type StoredQuestion,
  storeAnswerWithin,
} from './threads.ts';

describe.each(dialects)('thread messages on %s', (dialect) => {
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

  const newThread = async () =>
    (await createThread(db.storage, { organizationId, siteId, fp: 'anonymous' })).thread.id;
  const ask = (threadId: string, content: string): Promise<StoredQuestion> =>
    withWriteUnit(db.storage, {}, (unit) =>
      appendQuestionWithin(unit, threadId, { content, status: 'complete', requestId: `req_${content}` }),
    );
  /** An answer of the request `requestId` (time-ordered like real request ids: `req_2` is newer than `req_1`). */
  const answer = (threadId: string, question: StoredQuestion, content: string, requestId = 'req_1') =>
    withWriteUnit(db.storage, {}, (unit) =>
      storeAnswerWithin(unit, threadId, question.seq, { content, status: 'complete', requestId }),
    );
  const transcript = async (threadId: string) =>
    (await listThreadMessages(db.storage, threadId)).map((m) => `${m.seq}:${m.role}:${m.content}`);

  it('keeps each answer after its own question when questions are asked before the answers end', async () => {
    const thread = await newThread();
    const first = await ask(thread, 'one');
    await answer(thread, first, 'answer one');
    const second = await ask(thread, 'two');
    const third = await ask(thread, 'three');
    const fourth = await ask(thread, 'four');
    await answer(thread, fourth, 'answer four');
    const fifth = await ask(thread, 'five');
    await answer(thread, third, 'answer three');
    await answer(thread, second, 'answer two');
    await answer(thread, fifth, 'answer five');
    expect(await transcript(thread)).toEqual([
      '0:user:one',
      '1:assistant:answer one',
      '2:user:two',
      '3:assistant:answer two',
      '4:user:three',
      '5:assistant:answer three',
      '6:user:four',
      '7:assistant:answer four',
      '8:user:five',
      '9:assistant:answer five',
    ]);
  });

  it("keeps the newest request's answer to a question, whichever ends last", async () => {
    const thread = await newThread();
    const question = await ask(thread, 'why');
    // The first answer ends first: the regenerated one (a newer request) replaces it.
    expect(await answer(thread, question, 'first', 'req_1')).toBe('stored');
    expect(await answer(thread, question, 'regenerated', 'req_2')).toBe('stored');
    expect(await transcript(thread)).toEqual(['0:user:why', '1:assistant:regenerated']);
    // Regenerate, stop, regenerate again: the stopped one (req_3) ends after the one the reader saw
    // (req_4), which stays.
    expect(await answer(thread, question, 'seen', 'req_4')).toBe('stored');
    expect(await answer(thread, question, 'stopped', 'req_3')).toBe('superseded');
    expect(await transcript(thread)).toEqual(['0:user:why', '1:assistant:seen']);
    // An answer replaces crash recovery's placeholder for its own request (an instance taken for dead).
    const other = await ask(thread, 'and then');
    expect(await answer(thread, other, '', 'req_5')).toBe('stored');
    expect(await answer(thread, other, 'delivered', 'req_5')).toBe('stored');
    expect((await transcript(thread)).slice(2)).toEqual(['2:user:and then', '3:assistant:delivered']);
  });

  // Documented (docs/api-reference/assistant-feedback.mdx): a change here must change the docs too.
  it('keeps the votes on an answer a regenerated one replaces, with its text and the answer in its place', async () => {
    const thread = await newThread();
    const question = await ask(thread, 'vague');
    await answer(thread, question, 'a vague answer', 'req_1');
    const [old] = await listThreadMessages(db.storage, thread).then((m) =>
      m.filter((x) => x.role === 'assistant'),
    );
    const at = new Date().toISOString();
    await db.storage.db
      .insertInto('message_feedback')
      .values({
        message_id: old?.id ?? '',
        fp: 'anonymous',
        thread_id: thread,
        site_id: siteId,
        organization_id: organizationId,
        rating: 'down',
        comment: 'Too vague.',
        created_at: at,
        updated_at: at,
        resolved_at: null,
      })
      .execute();
    expect(await answer(thread, question, 'a better answer', 'req_2')).toBe('stored');
    const [now] = (await listThreadMessages(db.storage, thread)).filter((x) => x.role === 'assistant');
    const votes = await db.storage.db
      .selectFrom('message_feedback')
      .select(['message_id', 'rating', 'comment', 'replaced_by', 'replaced_answer'])
      .where('thread_id', '=', thread)
      .execute();
    expect(votes).toEqual([
      {
        message_id: old?.id,
        rating: 'down',
        comment: 'Too vague.',
        replaced_by: now?.id,
        replaced_answer: 'a vague answer',
      },
    ]);
    // Regenerated again, the vote follows the place and keeps the text of the answer it was given.
    expect(await answer(thread, question, 'a third answer', 'req_3')).toBe('stored');
    const [latest] = (await listThreadMessages(db.storage, thread)).filter((x) => x.role === 'assistant');
    const moved = await db.storage.db
      .selectFrom('message_feedback')
      .select(['replaced_by', 'replaced_answer'])
      .where('thread_id', '=', thread)
      .execute();
    expect(moved).toEqual([{ replaced_by: latest?.id, replaced_answer: 'a vague answer' }]);
  });

  it("leaves the votes as they are when an answer is stored again under its own id (crash recovery's placeholder)", async () => {
    const thread = await newThread();
    const question = await ask(thread, 'slow');
    const store = (content: string) =>
      withWriteUnit(db.storage, {}, (unit) =>
        storeAnswerWithin(unit, thread, question.seq, {
          id: 'msg_same',
          content,
          status: 'complete',
          requestId: 'req_1',
        }),
      );
    expect(await store('')).toBe('stored');
    const at = new Date().toISOString();
    await db.storage.db
      .insertInto('message_feedback')
      .values({
        message_id: 'msg_same',
        fp: 'anonymous',
        thread_id: thread,
        site_id: siteId,
        organization_id: organizationId,
        rating: 'down',
        comment: 'Empty.',
        created_at: at,
        updated_at: at,
        resolved_at: null,
      })
      .execute();
    expect(await store('delivered')).toBe('stored');
    const votes = await db.storage.db
      .selectFrom('message_feedback')
      .select(['message_id', 'replaced_by', 'replaced_answer'])
      .where('thread_id', '=', thread)
      .execute();
    expect(votes).toEqual([{ message_id: 'msg_same', replaced_by: null, replaced_answer: null }]);
  });

  it('never takes the place of a question (one an older Docent appended where an answer belongs)', async () => {
    const thread = await newThread();
    const first = await ask(thread, 'first');
    await db.storage.db
      .insertInto('thread_messages')
      .values({
        id: 'msg_old_replica',
        thread_id: thread,
        seq: first.seq + 1,
        role: 'user',
        content: 'appended at the end',
        status: 'complete',
        sources: '[]',
        created_at: new Date().toISOString(),
        request_id: 'req_0',
      })
      .execute();
    expect(await answer(thread, first, 'lost', 'req_9')).toBe('place-taken');
    expect(await transcript(thread)).toEqual(['0:user:first', '1:user:appended at the end']);
  });

  it('calls a question to a thread deleted meanwhile thread_not_found', async () => {
    const thread = await newThread();
    await db.storage.db.deleteFrom('threads').where('id', '=', thread).execute();
    await expect(ask(thread, 'anyone?')).rejects.toMatchObject({ kind: 'thread_not_found' });
  });

  it('stores nothing, and fails nothing, for a thread deleted while it was answered', async () => {
    const thread = await newThread();
    const question = await ask(thread, 'gone');
    await db.storage.db.deleteFrom('threads').where('id', '=', thread).execute();
    expect(await answer(thread, question, 'too late')).toBe('thread-gone');
    expect(await transcript(thread)).toEqual([]);
  });
});

describe('answers to one question stored at once on PostgreSQL (READ COMMITTED, no serial units)', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase('postgres');
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('stores them one after the other, so the newer request wins even while the older one commits', async () => {
    const organizationId = (await createOrganization(db.storage, { name: 'Acme' })).id;
    const siteId = (await createSite(db.storage, { organizationId, domain: 'acme' })).id;
    const { thread } = await createThread(db.storage, { organizationId, siteId, fp: 'anonymous' });
    const question = await withWriteUnit(db.storage, {}, (unit) =>
      appendQuestionWithin(unit, thread.id, { content: 'why', status: 'complete' }),
    );
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let inserted!: () => void;
    const insertedYet = new Promise<void>((resolve) => {
      inserted = resolve;
    });
    // The stopped answer's unit has stored it and not committed yet...
    const older = withWriteUnit(db.storage, {}, async (unit) => {
      const stored = await storeAnswerWithin(unit, thread.id, question.seq, {
        content: 'stopped',
        status: 'aborted',
        requestId: 'req_1',
      });
      inserted();
      await gate;
      return stored;
    });
    await insertedYet;
    // ...when the regenerated one's unit stores its own. Without the thread's row lock, its DELETE saw
    // nothing yet and its insert then yielded to the older row.
    const newer = withWriteUnit(db.storage, {}, (unit) =>
      storeAnswerWithin(unit, thread.id, question.seq, {
        content: 'regenerated',
        status: 'complete',
        requestId: 'req_2',
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    release();
    expect(await older).toBe('stored');
    expect(await newer).toBe('stored');
    const stored = await listThreadMessages(db.storage, thread.id);
    expect(stored.map((m) => `${m.seq}:${m.role}:${m.content}`)).toEqual([
      '0:user:why',
      '1:assistant:regenerated',
    ]);
  });
});
