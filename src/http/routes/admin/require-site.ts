import { unfinishedIngestion } from '../../../ingest/jobs.ts';
import type { Storage } from '../../../storage/database.ts';
import type { IngestionRunner } from '../../../tenancy/ingestion-runner.ts';
import { getOrganizationSite, type Site } from '../../../tenancy/sites.ts';
import { DocentError } from '../../errors.ts';

/** The organization's site with this domain; any other organization's site is simply not found. */
export async function requireOrganizationSite(
  storage: Storage,
  organizationId: string,
  domain: string,
): Promise<Site> {
  const site = await getOrganizationSite(storage, organizationId, domain);
  if (!site) throw new DocentError('not_found', `No site "${domain}" in this organization`);
  return site;
}

/**
 * A site's source changes, and the site is deleted, only between its ingestions: a running one reads the
 * folder or clone that the change would remove (it then stored a part of the site as a success, and a
 * deleted site's clone was written back after its removal). This process's runner knows its own jobs at
 * once; the job table, those of the other servers on the same database.
 */
export async function refuseWhileIngesting(
  deps: { ingestions: IngestionRunner; storage: Storage },
  siteId: string,
  action: string,
): Promise<void> {
  const jobId =
    deps.ingestions.runningJob(siteId) ??
    (await unfinishedIngestion(deps.storage, siteId, { serversOnly: true }));
  if (jobId !== undefined) throw ingestingConflict(jobId, action);
}

export function ingestingConflict(jobId: string, action: string): DocentError {
  return new DocentError(
    'conflict',
    `An ingestion of this site is running (${jobId}): ${action} once it has finished`,
  );
}
