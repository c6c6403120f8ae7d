import { Hono } from 'hono';
import { z } from 'zod';
import { getGitSource } from '../../../sources/git-sources.ts';
import { changeSiteSource } from '../../../sources/site-source.ts';
import { docsRootOf, storedUnderRoot, tenantsRootOf } from '../../../tenancy/docs-dir.ts';
import { IngestionBusyError } from '../../../tenancy/ingestion-runner.ts';
import type { AdminEnv } from '../../admin-env.ts';
import { DocentError } from '../../errors.ts';
import { errorResponses, jsonContent, type Operation } from '../../openapi.ts';
import { optionalJsonBody, validate } from '../../validation.ts';
import type { AdminDeps } from './admin-deps.ts';
import { docsDirOfRequest } from './git-source-request.ts';
import { refuseWhileIngesting, requireOrganizationSite } from './require-site.ts';
import { domainParamSchema, MAX_PATH_LENGTH } from './schemas.ts';

export const triggerIngestionBody = z
  .object({
    docsDir: z
      .string()
      .min(1)
      .max(MAX_PATH_LENGTH)
      .optional()
      .describe(
        "Folder under DOCENT_DOCS_ROOT (replaces a git source); left out: the site's stored folder, or a fetch of its git source",
      ),
  })
  .strict();

export const triggeredIngestionSchema = z.object({
  statusId: z.string(),
  status: z.literal('queued'),
  statusUrl: z.string(),
});

export const triggerIngestionOperation: Operation = {
  method: 'post',
  path: '/v1/admin/sites/{domain}/ingestions',
  summary: 'Re-ingest a site in the background (a git source is fetched first)',
  tags: ['Ingestion'],
  security: [{ adminKey: [] }],
  request: { params: domainParamSchema, body: { ...jsonContent(triggerIngestionBody), required: false } },
  responses: {
    202: { description: 'Queued; poll the status', ...jsonContent(triggeredIngestionSchema) },
    ...errorResponses(400, 401, 403, 404, 409, 413, 415, 429, 503),
  },
};

export function triggerIngestionRoute(deps: AdminDeps): Hono<AdminEnv> {
  return new Hono<AdminEnv>().post(
    '/v1/admin/sites/:domain/ingestions',
    validate('param', domainParamSchema),
    async (c) => {
      const { domain } = c.req.valid('param');
      const body = await optionalJsonBody(c, triggerIngestionBody);
      const organizationId = c.get('admin').organization.id;
      const site = await requireOrganizationSite(deps.storage, organizationId, domain);
      let docsDir = site.docs_dir;
      if (body.docsDir !== undefined) {
        await refuseWhileIngesting(deps, site.id, 'change its docs folder');
        deps.ingestions.refuseOverLimit(organizationId);
        docsDir = await docsDirOfRequest(deps, organizationId, body.docsDir);
        await changeSiteSource(deps.storage, deps.ingestions.git?.dataDir ?? null, site.id, { docsDir });
      }
      // A tenant's folder (in the tenants' tree): checked against its organization's folder now, and
      // again, pinned, when the job begins, so a folder swapped for a link in between is not followed.
      const tenants = tenantsRootOf(deps.docsRoot);
      const within =
        docsDir !== null && (await storedUnderRoot(docsDir, tenants))
          ? docsRootOf(deps.docsRoot, organizationId)
          : null;
      if (within !== null && body.docsDir === undefined && docsDir !== null)
        docsDir = await docsDirOfRequest(deps, organizationId, docsDir);
      const git = body.docsDir === undefined ? await getGitSource(deps.storage, site.id) : undefined;
      if (git && deps.ingestions.git === null)
        throw new DocentError('unavailable', 'This server has no data folder for git clones');
      if (!git && docsDir === null) {
        throw new DocentError(
          'invalid_request',
          deps.docsRoot === null
            ? `Site "${domain}" has no docs folder yet. This server takes none over the API (its operator sets DOCENT_DOCS_ROOT to allow folders under it): ingest it once with the CLI (docent ingest <dir> --site ${domain}), or give the site a git repository`
            : `Site "${domain}" has no docs folder yet: send docsDir (a folder under this server's DOCENT_DOCS_ROOT) or give the site a git repository`,
        );
      }
      try {
        const job = git
          ? await deps.ingestions.startGit(deps.storage, site.id)
          : await deps.ingestions.start(deps.storage, site.id, docsDir as string, within);
        return c.json(
          { statusId: job.id, status: 'queued' as const, statusUrl: `/v1/admin/ingestions/${job.id}` },
          202,
        );
      } catch (error) {
        if (error instanceof IngestionBusyError) throw new DocentError('conflict', error.message);
        throw error;
      }
    },
  );
}
