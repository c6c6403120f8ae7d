import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nowIso } from '../storage/ids.ts';
import { createOrganization } from '../tenancy/organizations.ts';
import { createSite } from '../tenancy/sites.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../testing/databases.ts';
import { recoverInterruptedAnswers } from './recover-interrupted-answers.ts';
import { appendThreadMessage, createThread, listThreadMessages } from './threads.ts';

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

  /** A thread with its question stored and its answer in flight under an instance that no longer runs. */
  async function interrupted(requestId: string, messageId: string | null): Promise<string> {
    const { thread } = await createThread(db.storage, { organizationId, siteId, fp: 'anonymous' });
    await appendThreadMessage(db.storage, thread.id, { role: 'user', content: 'Why?', status: 'complete' });
    await db.storage.db
      .insertInto('answers_in_flight')
      .values({
        request_id: requestId,
        organization_id: organizationId,
        thread_id: thread.id,
        instance_id: 'ins_dead',
        created_at: nowIso(),
        message_id: messageId,
      })
      .execute();
    return thread.id;
  }

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
