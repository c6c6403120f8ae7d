import { z } from 'zod';
import type { IngestionJob } from '../../../ingest/jobs.ts';
import { type ApiKey, keySummary } from '../../../tenancy/api-keys.ts';
import { domainSchema, type Site, siteAllowedOrigins } from '../../../tenancy/sites.ts';

/** Shared request and response shapes of the admin API (the OpenAPI document is built from them). */

export const MAX_NAME_LENGTH = 200;
export const MAX_PATH_LENGTH = 1024;
export const MAX_ID_LENGTH = 64;

export const domainParamSchema = z.object({ domain: domainSchema });
export const idParamSchema = z.object({ id: z.string().min(1).max(MAX_ID_LENGTH) });

export const siteSchema = z.object({
  id: z.string(),
  domain: z.string(),
  name: z.string(),
  baseUrl: z.string().nullable(),
  docsDir: z.string().nullable(),
  allowedOrigins: z.array(z.string()),
  public: z.boolean().describe('Agents may use the MCP server, search, page and context API without a key'),
  indexGeneration: z.number().int(),
  createdAt: z.string(),
});

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
});

export function ingestionJson(job: IngestionJob, domain: string): z.infer<typeof ingestionSchema> {
  return {
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
