import { EmptyDocsFolderError, type IngestionResult, ingestSite } from '../ingest/ingest-site.ts';
import type { LoadProgress } from '../ingest/types.ts';
import { type GitWorkspace, removeClone } from '../sources/git-checkout.ts';
import { ingestGitSite } from '../sources/git-ingestion.ts';
import { type GitSourceInput, setGitSource } from '../sources/git-sources.ts';
import type { Storage } from '../storage/database.ts';
import { createApiKey } from './api-keys.ts';
import { createOrganization, type Organization } from './organizations.ts';
import { createSite, MAX_NAME_LENGTH, parseBaseUrl, type Site, updateSite } from './sites.ts';

export interface BootstrapResult {
  organization: Organization;
  site: Site;
  assistantKey: string;
  ingestion: IngestionResult;
  /** For a git source: the commit ingested and the webhook secret (shown once). */
  git?: { commit: string; hookSecret: string };
}

/**
 * Organization + site + first ingestion + an assistant key: what `init` and the demo seed do. The docs
 * come from a folder (`docsDir`) or a git repository (`git`, cloned into `workspace`). A repository
 * that cannot be cloned leaves nothing behind: the organization and site are deleted again, so the
 * same `init` can be run once the URL is fixed.
 */
export async function bootstrapSite(
  storage: Storage,
  input: {
    domain: string;
    docsDir?: string;
    git?: { source: GitSourceInput; workspace: GitWorkspace };
    organizationName?: string;
    siteName?: string;
    baseUrl?: string | null;
    onProgress?: LoadProgress;
    /**
     * Docs with no pages are refused (EmptyDocsFolderError) and nothing is left behind: a mistyped or
     * empty folder would otherwise make a site that answers nothing, under a domain then taken.
     */
    refuseEmpty?: boolean;
    /**
     * The registered process running the first ingestion (src/recovery/instance-lifecycle.ts), recorded
     * on its job so that a live process marks it failed should this one be killed midway; without one
     * the job stayed `in_progress` for good, with its staged pages.
     */
    instanceId?: string;
    /**
     * Called once the organization and site exist, before their first ingestion: a caller interrupted
     * midway (Ctrl-C in `init`) removes them with `removeBootstrappedSite`, as a failure here does.
     */
    onCreated?: (created: BootstrappedSite) => void;
  },
): Promise<BootstrapResult> {
  if ((input.docsDir === undefined) === (input.git === undefined))
    throw new Error('bootstrapSite needs either a docs folder or a git source');
  // Before the first write: a bad base URL must not leave an organization without its site behind.
  const baseUrl = parseBaseUrl(input.baseUrl);
  const organization = await createOrganization(storage, { name: input.organizationName ?? input.domain });
  const site = await createSite(storage, {
    organizationId: organization.id,
    domain: input.domain,
    name: input.siteName ?? input.domain,
    docsDir: input.docsDir ?? null,
    baseUrl,
  });
  input.onCreated?.({ organizationId: organization.id, siteId: site.id });
  const options = {
    ...(input.onProgress ? { onProgress: input.onProgress } : {}),
    ...(input.instanceId === undefined ? {} : { instanceId: input.instanceId }),
  };
  let ingestion: IngestionResult;
  let git: BootstrapResult['git'];
  try {
    if (input.git) {
      const { newSecret } = await setGitSource(storage, site.id, input.git.source);
      const result = await ingestGitSite(storage, input.git.workspace, site.id, options);
      ingestion = result;
      git = { commit: result.commit, hookSecret: newSecret ?? '' };
    } else {
      ingestion = await ingestSite(storage, site.id, input.docsDir as string, options);
    }
    if (input.refuseEmpty === true && ingestion.counts.pages === 0)
      throw new EmptyDocsFolderError(`${emptySourceName(input, git)} has no pages to index`);
    // Unnamed by the caller: the docs' own name (llms.txt's title, the MCP tools' "Search the … docs").
    const docsName = siteNameOf(ingestion.docsName);
    if (input.siteName === undefined && docsName !== null) {
      await updateSite(storage, site.id, { name: docsName });
      site.name = docsName;
    }
  } catch (error) {
    // A site whose first ingestion failed (a repository that cannot be cloned, no such folder, no pages
    // where they are required) is not left behind, keyless, to block the next attempt under its domain.
    await removeBootstrappedSite(
      storage,
      { organizationId: organization.id, siteId: site.id },
      input.git?.workspace,
    );
    throw error;
  }
  const { key } = await createApiKey(storage, {
    organizationId: organization.id,
    siteId: site.id,
    kind: 'assistant',
    name: 'default',
  });
  return { organization, site, assistantKey: key, ingestion, ...(git ? { git } : {}) };
}

/** The organization and site `bootstrapSite` made. */
export interface BootstrappedSite {
  organizationId: string;
  siteId: string;
}

/**
 * Deletes what `bootstrapSite` made (the organization, and with it the site, its jobs and pages) and
 * the site's clone in `workspace`, if it was read from git: nothing is left to take the domain.
 */
export async function removeBootstrappedSite(
  storage: Storage,
  created: BootstrappedSite,
  workspace?: GitWorkspace,
): Promise<void> {
  await storage.db.deleteFrom('organizations').where('id', '=', created.organizationId).execute();
  if (workspace) await removeClone(workspace.dataDir, created.siteId);
}

function emptySourceName(
  input: { docsDir?: string; git?: { source: GitSourceInput } },
  git: BootstrapResult['git'],
): string {
  if (!input.git) return input.docsDir as string;
  const where = input.git.source.subdir
    ? `The folder ${input.git.source.subdir} of the repository`
    : 'The repository';
  return `${where} at commit ${git?.commit.slice(0, 12) ?? '?'}`;
}

/**
 * A name read from a docs config, fit for a site name: one line of printable characters (a NUL, which
 * PostgreSQL refuses, or a newline in llms.txt's `# name` line, never reaches storage), at most
 * MAX_NAME_LENGTH characters, cut between characters; null when nothing is left.
 */
export function siteNameOf(written: string | null | undefined): string | null {
  if (written === null || written === undefined) return null;
  const line = written
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const name = [...line].slice(0, MAX_NAME_LENGTH).join('').trim();
  return name === '' ? null : name;
}
