import path from 'node:path';
import type { Logger } from 'pino';
import { type Config, DEFAULT_DATABASE_URL } from '../config.ts';
import { startInstanceLifecycle } from '../recovery/instance-lifecycle.ts';
import type { Storage } from '../storage/database.ts';
import { bootstrapSite } from './bootstrap-site.ts';
import { DEMO_PAGE_KEY_NAME } from './demo-page-key.ts';
import { countOrganizations } from './organizations.ts';

export const DEMO_DOMAIN = 'demo';

/**
 * What the demo's widget offers to ask on an empty panel: questions its docs answer from the section
 * that covers them (src/eval/demo-answers.test.ts checks each). The server stores them as the site's
 * starter questions once `seedDemo` has created it.
 */
export const DEMO_STARTER_QUESTIONS = [
  'How do I embed the widget in my site?',
  'Can I use PostgreSQL?',
  'How do I rotate an API key?',
] as const;

/** What a first start created: the banner (`demoBanner`) tells the new user about it. */
export interface SeededDemo {
  siteId: string;
  docsDir: string;
  pages: number;
  /** Shown once, in the banner. */
  assistantKey: string;
}

/**
 * First start on an empty database: a demo organization and site built from the bundled docs, so a new
 * user can ask a question straight away. Null when the database already has an organization.
 */
export async function seedDemo(storage: Storage, config: Config, logger: Logger): Promise<SeededDemo | null> {
  const organizations = await countOrganizations(storage);
  if (organizations > 1 || (organizations === 1 && (await keylessDemo(storage)) === null)) return null;
  // Registered while it makes the demo (as `init` is), and the work of dead processes settled first: a
  // start killed midway leaves a job the next start marks failed, while a start running beside this one
  // (another server on the same database, or `docent init --site demo`) keeps its job in progress, and
  // its organization is not taken for a stopped start's.
  const lifecycle = await startInstanceLifecycle(storage, logger);
  try {
    if (organizations === 1) {
      const unfinished = await stoppedDemo(storage);
      if (unfinished === null) return null;
      logger.warn('the first start was stopped before its demo site was ready: making it again');
      await storage.db.deleteFrom('organizations').where('id', '=', unfinished).execute();
      if ((await countOrganizations(storage)) > 0) return null;
    }
    const docsDir = path.resolve(config.docsDir);
    const result = await bootstrapSite(storage, {
      domain: DEMO_DOMAIN,
      docsDir,
      organizationName: 'Demo',
      siteName: 'Docent',
      instanceId: lifecycle.instance.id,
    });
    logger.info({ site: DEMO_DOMAIN, ...result.ingestion.counts }, 'demo site ingested');
    return {
      siteId: result.site.id,
      docsDir,
      pages: result.ingestion.counts.pages,
      assistantKey: result.assistantKey,
    };
  } finally {
    await lifecycle.stop();
  }
}

/**
 * The database's only organization when it holds only the demo site and no key at all (the site's key
 * is made once its ingestion is done): a demo not finished yet, or never. Null for any other database:
 * nothing anyone could have used is removed.
 */
async function keylessDemo(storage: Storage): Promise<{ organizationId: string; siteId: string } | null> {
  const organizations = await storage.db.selectFrom('organizations').select('id').limit(2).execute();
  const [only] = organizations;
  if (organizations.length !== 1 || only === undefined) return null;
  const sites = await storage.db
    .selectFrom('sites')
    .select(['id', 'domain'])
    .where('organization_id', '=', only.id)
    .limit(2)
    .execute();
  const [site] = sites;
  if (sites.length !== 1 || site === undefined || site.domain !== DEMO_DOMAIN) return null;
  // The demo page's key is the server's own, made at every start: one start beside a stopped demo (its
  // process not known dead yet) made one, and the demo was never made again.
  const key = await storage.db
    .selectFrom('api_keys')
    .select('id')
    .where('organization_id', '=', only.id)
    .where('name', 'is distinct from', DEMO_PAGE_KEY_NAME)
    .limit(1)
    .executeTakeFirst();
  return key === undefined ? { organizationId: only.id, siteId: site.id } : null;
}

/**
 * The organization of a first start killed while it made the demo (Ctrl+C during its ingestion). Left,
 * it kept every later start from seeding (an organization exists) with a demo site of no pages, whose
 * key was never shown. Only a keyless demo whose ingestion is over: failed, done, or settled as
 * interrupted once its process was found dead. One still queued or running belongs to a live process
 * (a server starting beside this one, or `docent init --site demo`), whose demo this must not delete
 * under it; so does a demo with no job yet, its process between making the site and its job.
 */
async function stoppedDemo(storage: Storage): Promise<string | null> {
  const demo = await keylessDemo(storage);
  if (demo === null) return null;
  const jobs = await storage.db
    .selectFrom('ingestion_jobs')
    .select('status')
    .where('site_id', '=', demo.siteId)
    .execute();
  if (jobs.length === 0 || jobs.some((job) => job.status === 'queued' || job.status === 'in_progress'))
    return null;
  return demo.organizationId;
}

/**
 * The lines a first start prints once the server listens, in one block (log lines written between
 * its parts used to split it): the demo site and its key with a ready-to-paste request, then the demo
 * page and the console when the widget is built.
 */
export function demoBanner(
  base: string,
  demo: SeededDemo | null,
  demoPage: boolean,
  databaseUrl: string = DEFAULT_DATABASE_URL,
): string {
  const lines: string[] = [''];
  if (demo !== null) {
    // The current wire (v2, what AI SDK 5 and later send); v1 is deprecated. No chat `id`: a curl call
    // has nothing to resume with.
    const body = JSON.stringify({
      fp: 'anonymous',
      messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'How do I ingest my docs?' }] }],
    });
    lines.push(
      `Demo site "${DEMO_DOMAIN}" created from ${demo.docsDir} (${demo.pages} pages).`,
      `Assistant key (shown once): ${demo.assistantKey}`,
      '',
      'Ask it a question:',
      `  curl -N ${base}/v2/assistant/${DEMO_DOMAIN}/message \\`,
      `    -H 'Authorization: Bearer ${demo.assistantKey}' \\`,
      `    -H 'Content-Type: application/json' \\`,
      `    -d '${body}'`,
      '',
    );
  }
  if (demoPage) {
    lines.push(
      `Demo page: open ${base}/ and ask the assistant (Ctrl+I or ⌘I).`,
      // The console takes an admin key, which only the CLI mints (it has the database): say how.
      `Owner's console: ${base}/console, signed in with an admin key from ` +
        `npm run docent -- keys create --admin --site ${DEMO_DOMAIN}${databaseOption(databaseUrl)}`,
      '',
    );
  }
  return lines.length === 1 ? '' : lines.join('\n');
}

/**
 * What the CLI needs to reach the server's database when it is not the default one (a CLI in another
 * shell would open the default file): `--database-url`, a password shown as `***` (a start-up log is
 * no place for it).
 */
export function databaseOption(databaseUrl: string): string {
  if (databaseUrl === DEFAULT_DATABASE_URL) return '';
  try {
    const url = new URL(databaseUrl);
    // libpq-style URLs may carry it as a parameter too.
    const inQuery = url.searchParams.has('password');
    if (url.password !== '' || inQuery) {
      if (url.password !== '') url.password = '***';
      if (inQuery) url.searchParams.set('password', '***');
      return ` --database-url '${url.toString()}' (your password for ***)`;
    }
  } catch {
    // Not a URL the WHATWG parser reads: nothing in it to hide.
  }
  return ` --database-url '${databaseUrl}'`;
}
