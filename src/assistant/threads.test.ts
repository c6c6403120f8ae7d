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
  const answer = (threadId: string, question: StoredQuestion, content: string, replace = false) =>
    withWriteUnit(db.storage, {}, (unit) =>
      storeAnswerWithin(unit, threadId, question.seq, { content, status: 'complete' }, { replace }),
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

  it('lets a regenerated answer replace the stored one, and keeps it over the answer it replaced', async () => {
    const thread = await newThread();
    const question = await ask(thread, 'why');
    // The first answer ends first: the regenerated one replaces it.
    expect(await answer(thread, question, 'first')).toBe(true);
    expect(await answer(thread, question, 'regenerated', true)).toBe(true);
    expect(await transcript(thread)).toEqual(['0:user:why', '1:assistant:regenerated']);
    // A stopped answer that ends after the regenerated one was stored is not stored.
    expect(await answer(thread, question, 'late')).toBe(false);
    expect(await transcript(thread)).toEqual(['0:user:why', '1:assistant:regenerated']);
  });

  it('stores nothing, and fails nothing, for a thread deleted while it was answered', async () => {
    const thread = await newThread();
    const question = await ask(thread, 'gone');
    await db.storage.db.deleteFrom('threads').where('id', '=', thread).execute();
    expect(await answer(thread, question, 'too late')).toBe(false);
    expect(await transcript(thread)).toEqual([]);
  });
});
