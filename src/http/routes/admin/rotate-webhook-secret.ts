import { Hono } from 'hono';
import { z } from 'zod';
import { rotateHookSecret } from '../../../sources/git-sources.ts';
import type { AdminEnv } from '../../admin-env.ts';
import { DocentError } from '../../errors.ts';
import { errorResponses, jsonContent, type Operation } from '../../openapi.ts';
import { validate } from '../../validation.ts';
import type { AdminDeps } from './admin-deps.ts';
import { requireOrganizationSite } from './require-site.ts';
import { domainParamSchema } from './schemas.ts';

export const rotatedWebhookSecretSchema = z.object({
  webhookSecret: z.string().describe('The new secret, shown this once; the old one stops working at once'),
  webhookPath: z.string(),
});

export const rotateWebhookSecretOperation: Operation = {
  method: 'post',
  path: '/v1/admin/sites/{domain}/git/webhook-secret',
  summary: "Replace the secret of a site's git webhook",
  tags: ['Sites'],
  security: [{ adminKey: [] }],
  request: { params: domainParamSchema },
  responses: {
    200: { description: 'The new secret', ...jsonContent(rotatedWebhookSecretSchema) },
    ...errorResponses(400, 401, 404, 429),
  },
};

export function rotateWebhookSecretRoute(deps: AdminDeps): Hono<AdminEnv> {
  return new Hono<AdminEnv>().post(
    '/v1/admin/sites/:domain/git/webhook-secret',
    validate('param', domainParamSchema),
    async (c) => {
      const { domain } = c.req.valid('param');
      const site = await requireOrganizationSite(deps.storage, c.get('admin').organization.id, domain);
      const secret = await rotateHookSecret(deps.storage, site.id);
      if (secret === undefined) throw new DocentError('not_found', `Site "${domain}" has no git source`);
      return c.json({ webhookSecret: secret, webhookPath: `/v1/hooks/sites/${domain}/git` });
    },
  );
}
