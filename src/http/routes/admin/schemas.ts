import { z } from 'zod';
import type { IngestionJob } from '../../../ingest/jobs.ts';
import {
  type GitSourceRow,
  gitSourceView,
  MAX_POLL_MINUTES,
  MIN_POLL_MINUTES,
} from '../../../sources/git-sources.ts';
import { MAX_BRANCH_LENGTH, MAX_GIT_URL_LENGTH, MAX_SUBDIR_LENGTH } from '../../../sources/git-url.ts';
import { type ApiKey, keySummary } from '../../../tenancy/api-keys.ts';
import { domainSchema, MAX_NAME_LENGTH, type Site, siteAllowedOrigins } from '../../../tenancy/sites.ts';

/** Shared request and response shapes of the admin API (the OpenAPI document is built from them). */

export { MAX_NAME_LENGTH };

/**
 * A name's schema (labelSchema) as the OpenAPI document shows it: its length is a refinement, since it
 * counts code points, which the generator cannot read, so `maxLength` (code points in JSON Schema too) is
 * stated here. Called from the routes, after openapi.ts has added `.openapi()` to zod.
 */
export const documentedName = <T extends z.ZodTypeAny>(schema: T): T =>
  schema.openapi({ maxLength: MAX_NAME_LENGTH });
export const MAX_PATH_LENGTH = 1024;
export const MAX_ID_LENGTH = 64;

export const domainParamSchema = z.object({ domain: domainSchema });
export const idParamSchema = z.object({ id: z.string().min(1).max(MAX_ID_LENGTH) });

/** A git source in a request: the URL and branch rules are checked by sources/git-url.ts (400 naming them). */
export const gitSourceInputSchema = z
  .object({
    url: z
      .string()
      .min(1)
      .max(MAX_GIT_URL_LENGTH)
      .describe(
        "https://, http:// (unencrypted: a network attacker can change the docs), ssh:// or git@host:path; a path or file:// only inside DOCENT_DOCS_ROOT. A private repository needs its token in the URL (https://oauth2:TOKEN@host/…): git runs without the server's own credentials for sources set over the API, unless DOCENT_GIT_API_CREDENTIALS=server",
      ),
    branch: z
      .string()
      .min(1)
      .max(MAX_BRANCH_LENGTH)
      .nullable()
      .optional()
      .describe("Branch to follow; left out: the remote's default branch"),
    subdir: z
      .string()
      .max(MAX_SUBDIR_LENGTH)
      .optional()
      .describe('Folder of the repository holding the docs'),
    pollMinutes: z
      .number()
      .int()
      .min(MIN_POLL_MINUTES)
      .max(MAX_POLL_MINUTES)
      .nullable()
      .optional()
      .describe('Check the remote for new commits every this many minutes; null or left out: no polling'),
  })
  .strict();

export const gitSourceSchema = z.object({
  url: z.string().describe('Any password or token in the URL is shown as ***'),
  branch: z.string().nullable(),
  subdir: z.string(),
  pollMinutes: z.number().int().nullable(),
  commit: z.string().nullable().describe('The commit last fetched into the clone'),
  webhookPath: z
    .string()
    .describe('Where GitHub or GitLab push webhooks go (POST, signed with the site secret)'),
});

export function gitSourceJson(source: GitSourceRow, domain: string): z.infer<typeof gitSourceSchema> {
  return { ...gitSourceView(source), webhookPath: `/v1/hooks/sites/${domain}/git` };
}

export const siteSchema = z.object({
  id: z.string(),
  domain: z.string(),
  name: z.string(),
  baseUrl: z.string().nullable(),
  docsDir: z.string().nullable(),
  allowedOrigins: z.array(z.string()),
  public: z
    .boolean()
    .describe(
      'Agents may use the MCP server, search, page and context API without a key; its pages and llms.txt are published even with a base URL',
    ),
  indexGeneration: z.number().int(),
  createdAt: z.string(),
  git: gitSourceSchema
    .nullable()
    .optional()
    .describe('The git repository the docs come from (null: a folder)'),
  webhookSecret: z
    .string()
    .optional()
    .describe('Secret of the git webhook: returned once, when the git source is first set'),
});

/** A site with its git source (null: none), as every site response gives it. */
export function siteWithGitJson(site: Site, git: GitSourceRow | undefined): z.infer<typeof siteSchema> {
  return { ...siteJson(site), git: git === undefined ? null : gitSourceJson(git, site.domain) };
}

/** A site's own fields, without its git source. */
export function siteJson(site: Site): z.infer<typeof siteSchema> {
  return {
    id: site.id,
    domain: site.domain,
    name: site.name,
    baseUrl: site.base_url,
    docsDir: site.docs_dir,
    allowedOrigins: siteAllowedOrigins(site),
    public: site.public === 1,
    indexGeneration: Number(site.index_generation),
    createdAt: site.created_at,
  };
}

export const keySchema = z.object({
  id: z.string(),
  kind: z.enum(['assistant', 'admin']),
  name: z.string().nullable(),
  site: z.string().nullable().describe('Domain of the site an assistant key is bound to'),
  display: z.string().describe('Prefix and last four characters, e.g. `svc_dsc_…a1B2`'),
  createdAt: z.string(),
  expiresAt: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
});

export function keyJson(key: ApiKey, domains: Map<string, string>): z.infer<typeof keySchema> {
  const summary = keySummary(key);
  return {
    id: summary.id,
    kind: summary.kind,
    name: summary.name,
    site: summary.siteId === null ? null : (domains.get(summary.siteId) ?? null),
    display: summary.display,
    createdAt: summary.createdAt,
    expiresAt: summary.expiresAt,
    lastUsedAt: summary.lastUsedAt,
    revokedAt: summary.revokedAt,
  };
}

export const ingestionSchema = z.object({
  id: z.string(),
  site: z.string(),
  status: z.enum(['queued', 'in_progress', 'success', 'failure']),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  counts: z.record(z.number()).nullable(),
  warnings: z.array(z.object({ file: z.string(), line: z.number().optional(), message: z.string() })),
  error: z.string().nullable(),
  commit: z.string().nullable().describe('For a git source: the commit ingested (known once fetched)'),
});

export function ingestionJson(
  job: IngestionJob,
  domain: string,
  commit: string | null = null,
): z.infer<typeof ingestionSchema> {
  return {
    commit,
    id: job.id,
    site: domain,
    status: job.status,
    createdAt: job.createdAt,
    startedAt: job.startedAt,
    finishedAt: job.finishedAt,
    counts: job.counts ? { ...job.counts } : null,
    warnings: job.warnings.map((w) => ({ ...w })),
    error: job.error,
  };
}
