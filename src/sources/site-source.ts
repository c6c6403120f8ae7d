import type { Storage } from '../storage/database.ts';
import { deleteSite, type SiteDeletion, updateSite } from '../tenancy/sites.ts';
import { removeClone } from './git-checkout.ts';
import { deleteGitSource, type GitSourceInput, type GitSourceRow, setGitSource } from './git-sources.ts';

/** Where a site's docs come from after a change: a folder, a git repository, or (git: null) no repository. */
export type SourceChange = { docsDir: string } | { git: GitSourceInput } | { git: null };

/**
 * Points a site at a folder or a git repository; a site reads one source, so setting one drops the
 * other (and a dropped repository's clone is deleted). Returns the git source now set, and its
 * webhook secret when it is new.
 */
export async function changeSiteSource(
  storage: Storage,
  dataDir: string | null,
  siteId: string,
  change: SourceChange,
): Promise<{ git: GitSourceRow | undefined; newSecret: string | null }> {
  if ('docsDir' in change || change.git === null) {
    if ((await deleteGitSource(storage, siteId)) && dataDir !== null) await removeClone(dataDir, siteId);
    if ('docsDir' in change) await updateSite(storage, siteId, { docs_dir: change.docsDir });
    return { git: undefined, newSecret: null };
  }
  const { source, newSecret } = await setGitSource(storage, siteId, change.git);
  return { git: source, newSecret };
}

/**
 * Deletes a site with its pages, keys and threads, and its git clone: a deleted organization's docs must
 * not stay on the server's disk. Refused while a server ingests the site (deleteSite).
 */
export async function deleteSiteAndClone(
  storage: Storage,
  dataDir: string | null,
  organizationId: string,
  siteId: string,
): Promise<SiteDeletion> {
  const deletion = await deleteSite(storage, organizationId, siteId);
  if (deletion === 'deleted' && dataDir !== null) await removeClone(dataDir, siteId);
  return deletion;
}
