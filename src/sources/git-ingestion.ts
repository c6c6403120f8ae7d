import path from 'node:path';
import { DomainError } from '../errors/domain-error.ts';
import { type IngestionResult, type IngestOptions, runIngestionJob } from '../ingest/ingest-site.ts';
import {
  createIngestionJob,
  failIngestionJob,
  type IngestionJob,
  markIngestionStarted,
} from '../ingest/jobs.ts';
import type { Storage } from '../storage/database.ts';
import { nowIso } from '../storage/ids.ts';
import { getSite } from '../tenancy/sites.ts';
import { cloneFolder, type GitWorkspace, syncClone } from './git-checkout.ts';
import {
  type GitSourceRow,
  getGitSource,
  recordCheckout,
  recordJobCheckout,
  remoteOf,
  usesServerCredentials,
} from './git-sources.ts';

export interface GitIngestionResult extends IngestionResult {
  commit: string;
}

/**
 * A DomainError (404): the admin API's ingestion request read the site's git source, then a DELETE of the
 * site, or an unset of its source, committed before the runner read it again; a bare Error was a 500.
 */
export class NoGitSourceError extends DomainError {
  override name = 'NoGitSourceError';
  constructor() {
    super('not_found', 'This site has no git source');
  }
}

/** The folder a site's git ingestion will read, for its job row until the fetch names the real one. */
export function plannedDocsDir(workspace: GitWorkspace, source: GitSourceRow): string {
  const clone = cloneFolder(workspace.dataDir, source.site_id);
  return path.join(clone, source.subdir);
}

/** A queued job for the site's git source (the runner and the CLI then run it with `runGitIngestion`). */
export async function createGitIngestionJob(
  storage: Storage,
  workspace: GitWorkspace,
  source: GitSourceRow,
  instanceId: string | null,
): Promise<IngestionJob> {
  return createIngestionJob(storage, source.site_id, plannedDocsDir(workspace, source), instanceId);
}

/**
 * Fetches the site's repository into its clone, then ingests `<clone>/<subdir>` as a folder ingestion
 * does (unchanged pages are not parsed again: their content hashes match). A clone or fetch that fails
 * fails the job with git's message, URL credentials hidden; the site keeps its last ingestion.
 */
export async function runGitIngestion(
  storage: Storage,
  workspace: GitWorkspace,
  job: IngestionJob,
  options: IngestOptions = {},
): Promise<GitIngestionResult> {
  await markIngestionStarted(storage, job.id);
  const startedAt = nowIso();
  let docsDir: string;
  let commit: string;
  let sourceName: string;
  let checkout: Awaited<ReturnType<typeof syncClone>>;
  try {
    const source = await getGitSource(storage, job.siteId);
    if (!source) throw new NoGitSourceError();
    const site = await getSite(storage, source.site_id);
    // Deleted while its job waited: as if it had no source.
    if (site === undefined) throw new NoGitSourceError();
    checkout = await syncClone(workspace, {
      siteId: source.site_id,
      organizationId: site.organization_id,
      remote: remoteOf(source),
      branch: source.branch,
      subdir: source.subdir,
      serverCredentials: usesServerCredentials(source, workspace.serverCredentialsForApiSources),
    });
    await recordJobCheckout(storage, job.id, checkout);
    docsDir = checkout.docsDir;
    commit = checkout.commit;
    sourceName = `${source.subdir ? `The folder ${source.subdir}` : 'The repository'} at commit ${commit.slice(0, 12)}`;
  } catch (error) {
    await failIngestionJob(storage, job.id, error);
    throw error;
  }
  try {
    const sourceWarnings = checkout.submodules.map((file) => ({
      file,
      message: 'is a git submodule, which is not fetched (another repository); its pages are not indexed',
    }));
    const result = await runIngestionJob(
      storage,
      { ...job, sourceDir: docsDir },
      { sourceName, ...options, ...(sourceWarnings.length > 0 ? { sourceWarnings } : {}) },
    );
    // The site's commit is the one it serves: recorded once ingested, so a failed ingestion leaves the
    // site at its last good commit, and the poller tries the new one again.
    await recordCheckout(storage, job.siteId, checkout);
    return { ...result, commit };
  } finally {
    // The ingestion marks its own start once the files are read; the job began with the fetch.
    await storage.db
      .updateTable('ingestion_jobs')
      .set({ started_at: startedAt })
      .where('id', '=', job.id)
      .execute();
  }
}

/** Creates a job for the site's git source and runs it to completion (the CLI's `init` and `ingest`). */
export async function ingestGitSite(
  storage: Storage,
  workspace: GitWorkspace,
  siteId: string,
  options: IngestOptions = {},
): Promise<GitIngestionResult> {
  const source = await getGitSource(storage, siteId);
  if (!source) throw new NoGitSourceError();
  const job = await createGitIngestionJob(storage, workspace, source, options.instanceId ?? null);
  return runGitIngestion(storage, workspace, job, options);
}
