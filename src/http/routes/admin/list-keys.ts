import { Hono } from 'hono';
import { z } from 'zod';
import { listApiKeys } from '../../../tenancy/api-keys.ts';
import { domainSchema, listSites } from '../../../tenancy/sites.ts';
import type { AdminEnv } from '../../admin-env.ts';
import { errorResponses, jsonContent, type Operation } from '../../openapi.ts';
import { validate } from '../../validation.ts';
import type { AdminDeps } from './admin-deps.ts';
import { requireOrganizationSite } from './require-site.ts';
import { keyJson, keySchema } from './schemas.ts';

export const listKeysQuery = z
  .object({
    site: domainSchema.optional(),
    kind: z.enum(['assistant', 'admin']).optional(),
    revoked: z.enum(['include', 'exclude']).default('include'),
  })
  .strict();

export const listKeysResponse = z.object({ keys: z.array(keySchema) });

export const listKeysOperation: Operation = {
  method: 'get',
  path: '/v1/admin/keys',
  summary: "List the organization's keys (prefix and last four characters only)",
  tags: ['Keys'],
  security: [{ adminKey: [] }],
  request: { query: listKeysQuery },
  responses: {
    200: { description: 'Keys', ...jsonContent(listKeysResponse) },
    ...errorResponses(400, 401, 404, 429),
  },
};

export function listKeysRoute(deps: AdminDeps): Hono<AdminEnv> {
  return new Hono<AdminEnv>().get('/v1/admin/keys', validate('query', listKeysQuery), async (c) => {
    const query = c.req.valid('query');
    const organizationId = c.get('admin').organization.id;
    let siteId: string | undefined;
    if (query.site !== undefined) {
      const site = await requireOrganizationSite(deps.storage, organizationId, query.site);
      siteId = site.id;
    }
    const keys = await listApiKeys(deps.storage, organizationId, {
      ...(siteId !== undefined ? { siteId } : {}),
      ...(query.kind !== undefined ? { kind: query.kind } : {}),
    });
    const domains = new Map((await listSites(deps.storage, organizationId)).map((s) => [s.id, s.domain]));
    const shown = query.revoked === 'exclude' ? keys.filter((k) => k.revoked_at === null) : keys;
    return c.json({ keys: shown.map((k) => keyJson(k, domains)) });
  });
}
