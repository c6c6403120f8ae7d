import { Migrator, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { getGitSource } from '../../sources/git-sources.ts';
import { createOrganization } from '../../tenancy/organizations.ts';
import { createSite } from '../../tenancy/sites.ts';
import { createTemporaryTestDatabase, dialects } from '../../testing/databases.ts';
import { migrate, openStorage, type Storage } from '../database.ts';
import type { TemporaryDatabase } from '../temporary-database.ts';
import { migrationProvider } from './index.ts';

/** 0019-git-source-set-by on a database holding a git source: nothing says the operator chose it. */
describe.each(dialects)('migration 0019-git-source-set-by on %s', (dialect) => {
  let temporary: TemporaryDatabase | undefined;
  let storage: Storage | undefined;
  afterEach(async () => {
    await storage?.close();
    await temporary?.remove();
  });

  it('takes a source stored before it for one set over the API (no server credentials)', async () => {
    temporary = await createTemporaryTestDatabase(dialect);
    const db = await openStorage(temporary.url, { migrate: false });
    storage = db;
    const migrator = new Migrator({ db: db.db, provider: migrationProvider });
    expect((await migrator.migrateTo('0018-kept-votes')).error).toBeUndefined();
    const organizationId = (await createOrganization(db, { name: 'Acme' })).id;
    const site = await createSite(db, { organizationId, domain: 'acme' });
    const at = new Date().toISOString();
    await sql`insert into site_git_sources (site_id, url, branch, subdir, hook_secret, poll_minutes, next_poll_at, checked_out_commit, created_at, updated_at)
      values (${site.id}, 'git@github.com:acme/docs.git', 'main', '', 'dhk_x', null, null, null, ${at}, ${at})`.execute(
      db.db,
    );

    await migrate(db);
    expect((await getGitSource(db, site.id))?.set_by).toBe('api');
  });
});
