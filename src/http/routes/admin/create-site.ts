import { Hono } from 'hono';
import { z } from 'zod';
import { changeSiteSource } from '../../../sources/site-source.ts';
import { DEMO_DOMAIN } from '../../../tenancy/seed-demo.ts';
import {
  allowedOriginsSchema,
  baseUrlSchema,
  createSite,
  DomainTakenError,
  domainSchema,
  siteNameSchema,
} from '../../../tenancy/sites.ts';
import type { AdminEnv } from '../../admin-env.ts';
import { DocentError } from '../../errors.ts';
import { errorResponses, jsonContent, type Operation } from '../../openapi.ts';
import { validate } from '../../validation.ts';
import type { AdminDeps } from './admin-deps.ts';
import { docsDirOfRequest, gitSourceOfRequest, refuseBothSources } from './git-source-request.ts';
import {
  documentedName,
  gitSourceInputSchema,
  MAX_PATH_LENGTH,
  siteSchema,
  siteWithGitJson,
} from './schemas.ts';

export const createSiteBody = z
  .object({
    domain: domainSchema,
    name: documentedName(siteNameSchema).optional(),
    baseUrl: baseUrlSchema
      .nullable()
      .optional()
      .describe("http: or https: address of the docs; citations link there (null: Docent's page view)"),
    docsDir: z.string().min(1).max(MAX_PATH_LENGTH).optional().describe('Folder under DOCENT_DOCS_ROOT'),
    git: gitSourceInputSchema
      .optional()
      .describe('Git repository holding the docs, instead of docsDir; ingest it with POST …/ingestions'),
    allowedOrigins: allowedOriginsSchema.optional(),
  })
  .strict();

export const createSiteOperation: Operation = {
  method: 'post',
  path: '/v1/admin/sites',
  summary: 'Create a site (docs from a folder or a git repository)',
  tags: ['Sites'],
  security: [{ adminKey: [] }],
  request: { body: jsonContent(createSiteBody) },
  responses: {
    201: {
      description: 'The new site; with `git`, its webhook secret (`webhookSecret`, shown this once)',
      ...jsonContent(siteSchema),
    },
    ...errorResponses(400, 401, 403, 409, 413, 415, 429, 503),
  },
};

export function createSiteRoute(deps: AdminDeps): Hono<AdminEnv> {
  return new Hono<AdminEnv>().post('/v1/admin/sites', validate('json', createSiteBody), async (c) => {
    const body = c.req.valid('json');
    const { organization } = c.get('admin');
    refuseBothSources(body);
    // The server's demo page (DOCENT_DEMO_PAGE, on by default) serves whatever site has this domain at
    // `/` and mints an assistant key of it into that page at every start: taken by an organization
    // where no demo was seeded, the server's home page showed its docs and published its key.
    if (body.domain === DEMO_DOMAIN)
      throw new DocentError(
        'conflict',
        `Site domain "${DEMO_DOMAIN}" is reserved for this server's demo page; choose another domain`,
      );
    const docsDir =
      body.docsDir === undefined ? null : await docsDirOfRequest(deps, organization.id, body.docsDir);
    const git =
      body.git === undefined ? undefined : await gitSourceOfRequest(deps, organization.id, body.git);
    try {
      const site = await createSite(deps.storage, {
        organizationId: organization.id,
        domain: body.domain,
        ...(body.name ? { name: body.name } : {}),
        baseUrl: body.baseUrl ?? null,
        docsDir,
        allowedOrigins: body.allowedOrigins ?? [],
      });
      if (!git) return c.json(siteWithGitJson(site, undefined), 201);
      const set = await changeSiteSource(deps.storage, deps.ingestions.git?.dataDir ?? null, site.id, {
        git,
      });
      const json = siteWithGitJson(site, set.git);
      return c.json({ ...json, ...(set.newSecret ? { webhookSecret: set.newSecret } : {}) }, 201);
    } catch (error) {
      if (error instanceof DomainTakenError) throw new DocentError('conflict', error.message);
      throw error;
    }
  });
}
