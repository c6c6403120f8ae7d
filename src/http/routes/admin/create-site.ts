import { Hono } from 'hono';
import { z } from 'zod';
import { DocsDirError, resolveDocsDirUnderRoot } from '../../../tenancy/docs-dir.ts';
import {
  allowedOriginsSchema,
  baseUrlSchema,
  createSite,
  DomainTakenError,
  domainSchema,
} from '../../../tenancy/sites.ts';
import type { AdminEnv } from '../../admin-env.ts';
import { DocentError } from '../../errors.ts';
import { errorResponses, jsonContent, type Operation } from '../../openapi.ts';
import { validate } from '../../validation.ts';
import type { AdminDeps } from './admin-deps.ts';
import { MAX_NAME_LENGTH, MAX_PATH_LENGTH, siteJson, siteSchema } from './schemas.ts';

export const createSiteBody = z
  .object({
    domain: domainSchema,
    name: z.string().min(1).max(MAX_NAME_LENGTH).optional(),
    baseUrl: baseUrlSchema
      .nullable()
      .optional()
      .describe("http: or https: address of the docs; citations link there (null: Docent's page view)"),
    docsDir: z.string().min(1).max(MAX_PATH_LENGTH).optional().describe('Folder under DOCENT_DOCS_ROOT'),
    allowedOrigins: allowedOriginsSchema.optional(),
  })
  .strict();

export const createSiteOperation: Operation = {
  method: 'post',
  path: '/v1/admin/sites',
  summary: 'Create a site',
  tags: ['Sites'],
  security: [{ adminKey: [] }],
  request: { body: jsonContent(createSiteBody) },
  responses: {
    201: { description: 'The new site', ...jsonContent(siteSchema) },
    ...errorResponses(400, 401, 403, 409, 429),
  },
};

export function createSiteRoute(deps: AdminDeps): Hono<AdminEnv> {
  return new Hono<AdminEnv>().post('/v1/admin/sites', validate('json', createSiteBody), async (c) => {
    const body = c.req.valid('json');
    const { organization } = c.get('admin');
    let docsDir: string | null = null;
    if (body.docsDir !== undefined) {
      try {
        docsDir = await resolveDocsDirUnderRoot(body.docsDir, deps.docsRoot);
      } catch (error) {
        if (error instanceof DocsDirError) throw new DocentError('forbidden', error.message);
        throw error;
      }
    }
    try {
      const site = await createSite(deps.storage, {
        organizationId: organization.id,
        domain: body.domain,
        ...(body.name ? { name: body.name } : {}),
        baseUrl: body.baseUrl ?? null,
        docsDir,
        allowedOrigins: body.allowedOrigins ?? [],
      });
      return c.json(siteJson(site), 201);
    } catch (error) {
      if (error instanceof DomainTakenError) throw new DocentError('conflict', error.message);
      throw error;
    }
  });
}
