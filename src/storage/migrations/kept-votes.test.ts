import { Migrator } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { createThread, storeAnswerWithin } from '../../assistant/threads.ts';
import { createOrganization } from '../../tenancy/organizations.ts';
import { createSite } from '../../tenancy/sites.ts';
import { createTemporaryTestDatabase, dialects } from '../../testing/databases.ts';
import { openStorage, type Storage } from '../database.ts';
import type { TemporaryDatabase } from '../temporary-database.ts';
import { withWriteUnit } from '../write-unit.ts';
import { migrationProvider } from './index.ts';

/** 0018-kept-votes on a database holding votes: they stay, and no longer go with their answer row. */
describe.each(dialects)('migration 0018-kept-votes on %s', (dialect) => {
  let temporary: TemporaryDatabase | undefined;
  let storage: Storage | undefined;
  afterEach(async () => {
    await storage?.close();
    await temporary?.remove();
  });

  it('keeps the votes stored before it, which then outlive their answer but not their thread', async () => {
    temporary = await createTemporaryTestDatabase(dialect);
    const db = await openStorage(temporary.url, { migrate: false });
    storage = db;
    const migrator = new Migrator({ db: db.db, provider: migrationProvider });
    expect((await migrator.migrateTo('0017-answer-places')).error).toBeUndefined();

    const organizationId = (await createOrganization(db, { name: 'Acme' })).id;
    const site = await createSite(db, { organizationId, domain: 'acme' });
    const { thread } = await createThread(db, { organizationId, siteId: site.id, fp: 'reader' });
    await db.db
      .insertInto('thread_messages')
      .values({
        id: 'msg_q',
        thread_id: thread.id,
        seq: 0,
        role: 'user',
        content: 'Why?',
        status: 'complete',
        sources: '[]',
        created_at: new Date().toISOString(),
      })
      .execute();
    await withWriteUnit(db, {}, (unit) =>
      storeAnswerWithin(unit, thread.id, 0, { id: 'msg_a', content: 'Because.', status: 'complete' }),
    );
    const at = new Date().toISOString();
    await db.db
      .insertInto('message_feedback')
      .values({
        message_id: 'msg_a',
        fp: 'reader',
        thread_id: thread.id,
        site_id: site.id,
        organization_id: organizationId,
        rating: 'down',
        comment: 'No.',
        created_at: at,
        updated_at: at,
        resolved_at: null,
      })
      .execute();

    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    const votes = () =>
      db.db.selectFrom('message_feedback').select(['message_id', 'comment', 'replaced_by']).execute();
    expect(await votes()).toEqual([{ message_id: 'msg_a', comment: 'No.', replaced_by: null }]);
    await db.db.deleteFrom('thread_messages').where('id', '=', 'msg_a').execute();
    expect(await votes()).toHaveLength(1);
    await db.db.deleteFrom('threads').where('id', '=', thread.id).execute();
    expect(await votes()).toEqual([]);
  });
});
