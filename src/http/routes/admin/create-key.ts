import { Hono } from 'hono';
import { z } from 'zod';
import { createApiKey, KeyCreationLimitError, keyNameSchema } from '../../../tenancy/api-keys.ts';
import { domainSchema } from '../../../tenancy/sites.ts';
import type { AdminEnv } from '../../admin-env.ts';
import { DocentError } from '../../errors.ts';
import { errorResponses, jsonContent, type Operation } from '../../openapi.ts';
import { validate } from '../../validation.ts';
import type { AdminDeps } from './admin-deps.ts';
import { requireOrganizationSite } from './require-site.ts';
import { documentedName, keyJson, keySchema } from './schemas.ts';

export const createKeyBody = z
  .object({
    kind: z.enum(['assistant', 'admin']),
    site: domainSchema.optional().describe('Required for an assistant key: the site it is bound to'),
    name: documentedName(keyNameSchema).optional(),
    expiresAt: z
      .string()
      .datetime({ offset: true })
      .refine((value) => new Date(value).getTime() > Date.now(), 'must be in the future')
      .optional(),
  })
  .strict()
  .superRefine((body, ctx) => {
    if (body.kind === 'assistant' && body.site === undefined)
      ctx.addIssue({ code: 'custom', path: ['site'], message: 'an assistant key needs a site' });
    if (body.kind === 'admin' && body.site !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['site'],
        message: 'an admin key is organization-wide: leave out site',
      });
  });

export const createdKeySchema = keySchema.extend({
  key: z.string().describe('The full key. Shown only in this response; only its hash is stored.'),
});

export const createKeyOperation: Operation = {
  method: 'post',
  path: '/v1/admin/keys',
  summary: 'Create a key (the only time the full key is shown)',
  tags: ['Keys'],
  security: [{ adminKey: [] }],
  request: { body: jsonContent(createKeyBody) },
  responses: {
    201: { description: 'The new key', ...jsonContent(createdKeySchema) },
    ...errorResponses(400, 401, 404, 413, 415, 429),
  },
};

export function createKeyRoute(deps: AdminDeps): Hono<AdminEnv> {
  return new Hono<AdminEnv>().post('/v1/admin/keys', validate('json', createKeyBody), async (c) => {
    const body = c.req.valid('json');
    const organizationId = c.get('admin').organization.id;
    let siteId: string | null = null;
    const domains = new Map<string, string>();
    if (body.site !== undefined) {
      const site = await requireOrganizationSite(deps.storage, organizationId, body.site);
      siteId = site.id;
      domains.set(site.id, site.domain);
    }
    try {
      const { key, record } = await createApiKey(deps.storage, {
        organizationId,
        siteId,
        kind: body.kind,
        ...(body.name ? { name: body.name } : {}),
        expiresAt: body.expiresAt ? new Date(body.expiresAt).toISOString() : null,
      });
      return c.json({ ...keyJson(record, domains), key }, 201);
    } catch (error) {
      if (error instanceof KeyCreationLimitError) {
        throw new DocentError('rate_limited', error.message, {
          headers: { 'Retry-After': String(error.retryAfterSeconds) },
        });
      }
      throw error;
    }
  });
}
