import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIngestionJob, failIngestionJob, markIngestionStarted } from '../ingest/jobs.ts';
import { recoverInterruptedIngestions } from '../ingest/recover-interrupted-ingestions.ts';
import { openStorage } from '../storage/database.ts';
import { createOrganization } from '../tenancy/organizations.ts';
import { createSite } from '../tenancy/sites.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../testing/databases.ts';
import { resolveRequestedGitSource } from './git-api-source.ts';
import type { GitSourceRow } from './git-sources.ts';
import {
  failedLatestAt,
  recordJobCheckout,
  sameGitPlace,
  setGitSource,
  usesServerCredentials,
} from './git-sources.ts';

describe('sameGitPlace', () => {
  const current = {
    site_id: 'site_1',
    url: 'https://github.com/acme/docs.git',
    branch: 'main',
    subdir: 'docs',
    poll_minutes: 15,
  } as GitSourceRow;
  const input = { url: current.url, branch: 'main', subdir: 'docs', pollMinutes: 5, setBy: 'api' as const };

  it('is the same place when only the polling interval differs, or the branch is left to the one learnt', () => {
    expect(sameGitPlace(input, current)).toBe(true);
    expect(sameGitPlace({ ...input, branch: null }, current)).toBe(true);
  });

  it('is another place for another repository, branch or folder, or when the site had none', () => {
    expect(sameGitPlace({ ...input, url: 'https://github.com/acme/other.git' }, current)).toBe(false);
    expect(sameGitPlace({ ...input, branch: 'v2' }, current)).toBe(false);
    expect(sameGitPlace({ ...input, subdir: '' }, current)).toBe(false);
    expect(sameGitPlace(input, undefined)).toBe(false);
  });
});

describe('usesServerCredentials', () => {
  it('lets git use the server user’s credentials for the operator’s sources, and for the API’s only when allowed', () => {
    expect(usesServerCredentials({ set_by: 'cli' }, false)).toBe(true);
    expect(usesServerCredentials({ set_by: 'api' }, false)).toBe(false);
    expect(usesServerCredentials({ set_by: 'api' }, true)).toBe(true);
  });

  it('counts a source an admin sets over the API as theirs', async () => {
    const source = await resolveRequestedGitSource({ url: 'https://github.com/acme/docs.git' }, null);
    expect(source.setBy).toBe('api');
  });
});

describe.each(dialects)('failedLatestAt on %s', (dialect) => {
  let database: TestDatabase;
  let siteId: string;
  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    const org = await createOrganization(database.storage, { name: 'o' });
    siteId = (await createSite(database.storage, { organizationId: org.id, domain: 'polled' })).id;
  });
  afterAll(async () => {
    await database.drop();
  });

  /** A job of `commit` that failed with `error`; `dead`: its process died instead (recovered at start). */
  const failedJob = async (commit: string, error: string | 'dead'): Promise<void> => {
    const { storage } = database;
    const job = await createIngestionJob(storage, siteId, '/clone', error === 'dead' ? 'ins_gone' : null);
    await markIngestionStarted(storage, job.id);
    await recordJobCheckout(storage, job.id, { docsDir: '/clone/docs', commit });
    if (error === 'dead') await recoverInterruptedIngestions(storage, []);
    else await failIngestionJob(storage, job.id, new Error(error));
    // Jobs are ordered by creation time: the next one must come after this one.
    await new Promise((resolve) => setTimeout(resolve, 5));
  };

  it('leaves a failed commit alone, but tries once more a commit whose ingestion was interrupted', async () => {
    const { storage } = database;
    await failedJob('a'.repeat(40), 'docs.json is not valid JSON');
    expect(await failedLatestAt(storage, siteId, 'a'.repeat(40))).toBe(true);
    // The server was killed mid-ingestion: nothing is wrong with the commit, and no push comes again.
    await failedJob('b'.repeat(40), 'dead');
    expect(await failedLatestAt(storage, siteId, 'b'.repeat(40))).toBe(false);
    // Interrupted again at the same commit: the commit may be what stops the process.
    await failedJob('b'.repeat(40), 'dead');
    expect(await failedLatestAt(storage, siteId, 'b'.repeat(40))).toBe(true);
  });
});

describe('setGitSource at once on PostgreSQL', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('lets concurrent settings of one site’s first source each succeed, one row and one secret left', async () => {
    const { storage } = database;
    const org = await createOrganization(storage, { name: 'git-at-once' });
    const site = await createSite(storage, { organizationId: org.id, domain: 'git-at-once' });
    const other = await openStorage(database.url);
    try {
      let set: Promise<Awaited<ReturnType<typeof setGitSource>>[]> | undefined;
      // Two admins (or a retried PATCH) setting the source together: each read "no source yet" before
      // the other committed, and the second insert's unique violation was a 500. Another write holding
      // the site's row makes both reads come before either insert.
      await other.db.transaction().execute(async (trx) => {
        await trx.updateTable('sites').set({ name: 'held' }).where('id', '=', site.id).execute();
        set = Promise.all(
          Array.from({ length: 2 }, (_, i) =>
            setGitSource(storage, site.id, {
              url: `https://example.com/docs-${i}.git`,
              branch: null,
              subdir: '',
              pollMinutes: null,
              setBy: 'api',
            }),
          ),
        );
        for (let i = 0; i < 100; i++) {
          const waiting = await sql<{ n: number }>`
            select count(*)::int as n from pg_stat_activity
            where datname = current_database() and wait_event_type = 'Lock'`.execute(other.db);
          if ((waiting.rows[0]?.n ?? 0) >= 2) break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      });
      const results = await set;
      const rows = await storage.db
        .selectFrom('site_git_sources')
        .selectAll()
        .where('site_id', '=', site.id)
        .execute();
      expect(rows).toHaveLength(1);
      // Only the one that created the source hands out a secret, and it is the stored one.
      expect(results?.map((r) => r.newSecret).filter((s) => s !== null)).toEqual([rows[0]?.hook_secret]);
    } finally {
      await other.close();
    }
  });
});
