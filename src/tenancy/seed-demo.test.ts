import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_DATABASE_URL, loadConfig } from '../config.ts';
import { createIngestionJob, listIngestionJobs } from '../ingest/jobs.ts';
import type { Storage } from '../storage/database.ts';
import { newId } from '../storage/ids.ts';
import { createTestDatabase, dialects, type TestDatabase } from '../testing/databases.ts';
import { smallDocs } from '../testing/small-docs.ts';
import { mintDemoPageKey } from './demo-page-key.ts';
import { countOrganizations, createOrganization } from './organizations.ts';
import { DEMO_DOMAIN, databaseOption, type SeededDemo, seedDemo } from './seed-demo.ts';
import { createSite, getSiteByDomain } from './sites.ts';

const silent = pino({ level: 'silent' });

describe('the database option the start-up banner prints', () => {
  it('is nothing for the default file, the URL for another, and never a password', () => {
    expect(databaseOption(DEFAULT_DATABASE_URL)).toBe('');
    expect(databaseOption('sqlite:/srv/docent.db')).toBe(" --database-url 'sqlite:/srv/docent.db'");
    expect(databaseOption('postgres://docent@db:5432/docent')).toBe(
      " --database-url 'postgres://docent@db:5432/docent'",
    );
    const withPassword = databaseOption('postgres://docent:s3cret@db:5432/docent');
    expect(withPassword).not.toContain('s3cret');
    expect(withPassword).toBe(
      " --database-url 'postgres://docent:***@db:5432/docent' (your password for ***)",
    );
    const inQuery = databaseOption('postgres://db:5432/docent?user=docent&password=s3cret&sslmode=require');
    expect(inQuery).not.toContain('s3cret');
    expect(inQuery).toContain('password=***');
  });
});

describe.each(dialects)('the first start on %s', (dialect) => {
  let database: TestDatabase;
  beforeEach(async () => {
    database = await createTestDatabase(dialect);
  });
  afterEach(async () => {
    await database.drop();
  });
  const config = () => ({ ...loadConfig({}), docsDir: smallDocs() });

  it('makes the demo again when a start was stopped while making it, and nothing else', async () => {
    const { storage } = database;
    // What a first start killed during the demo's ingestion leaves: the organization, the site, the job
    // of its instance, whose heartbeat has stopped.
    const organization = await createOrganization(storage, { name: 'Demo' });
    const site = await createSite(storage, { organizationId: organization.id, domain: DEMO_DOMAIN });
    const killed = await instance(storage, { host: 'killed-host', heartbeatAgoMs: 10 * 60_000 });
    await createIngestionJob(storage, site.id, smallDocs(), killed);
    // A start before the killed one was known dead made the demo page's key, as every start does.
    expect(await mintDemoPageKey(storage, DEMO_DOMAIN)).toMatch(/^svc_dsc_/);
    const demo = await seedDemo(storage, config(), silent);
    expect(demo?.pages).toBeGreaterThan(0);
    expect(demo?.assistantKey).toMatch(/^svc_dsc_/);
    expect(await countOrganizations(storage)).toBe(1);
    const jobs = await listIngestionJobs(storage, (demo as SeededDemo).siteId);
    expect(jobs.map((job) => job.status)).toEqual(['success']);
    // The next start finds a whole demo (it has its key) and leaves it.
    expect(await seedDemo(storage, config(), silent)).toBeNull();
    expect((await getSiteByDomain(storage, DEMO_DOMAIN))?.id).toBe(demo?.siteId);
  });

  it('leaves a database whose organization is not a stopped demo', async () => {
    const { storage } = database;
    // A keyless site of another name, and a keyless demo beside a second organization.
    const one = await createOrganization(storage, { name: 'One' });
    await createSite(storage, { organizationId: one.id, domain: 'docs' });
    expect(await seedDemo(storage, config(), silent)).toBeNull();
    const demoOrg = await createOrganization(storage, { name: 'Demo' });
    await createSite(storage, { organizationId: demoOrg.id, domain: DEMO_DOMAIN });
    expect(await seedDemo(storage, config(), silent)).toBeNull();
    expect(await countOrganizations(storage)).toBe(2);
  });

  it('leaves a demo another live process is making (a server starting beside it)', async () => {
    const { storage } = database;
    // The state a start killed midway leaves, but its process is alive elsewhere and still ingesting.
    const organization = await createOrganization(storage, { name: 'Demo' });
    const site = await createSite(storage, { organizationId: organization.id, domain: DEMO_DOMAIN });
    const live = await instance(storage, { host: 'other-host', heartbeatAgoMs: 0 });
    const job = await createIngestionJob(storage, site.id, smallDocs(), live);
    expect(await seedDemo(storage, config(), silent)).toBeNull();
    expect((await getSiteByDomain(storage, DEMO_DOMAIN))?.id).toBe(site.id);
    expect((await listIngestionJobs(storage, site.id)).map((j) => [j.id, j.status])).toEqual([
      [job.id, 'queued'],
    ]);
    // And a demo site whose process has not made its job yet.
    await storage.db.deleteFrom('ingestion_jobs').execute();
    expect(await seedDemo(storage, config(), silent)).toBeNull();
    expect((await getSiteByDomain(storage, DEMO_DOMAIN))?.id).toBe(site.id);
  });
});

/** A server instance registered by another process, on another host: dead once its heartbeat is old. */
async function instance(
  storage: Storage,
  options: { host: string; heartbeatAgoMs: number },
): Promise<string> {
  const id = newId('ins');
  const at = new Date(Date.now() - options.heartbeatAgoMs).toISOString();
  await storage.db
    .insertInto('server_instances')
    .values({ id, host: options.host, pid: 1, started_at: at, heartbeat_at: at })
    .execute();
  return id;
}
