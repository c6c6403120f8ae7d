import { Hono } from 'hono';
import { z } from 'zod';
import {
  getSiteModelSettings,
  siteModelOptionsSchema,
  siteModelSettingsSchema,
  updateSiteModelSettings,
} from '../../../assistant/providers/site-model-settings.ts';
import type { AdminEnv } from '../../admin-env.ts';
import { DocentError } from '../../errors.ts';
import { errorResponses, jsonContent, type Operation } from '../../openapi.ts';
import { validate } from '../../validation.ts';
import type { AdminDeps } from './admin-deps.ts';
import { requireOrganizationSite } from './require-site.ts';
import { domainParamSchema } from './schemas.ts';

export const siteSettingsUpdateBody = siteModelSettingsSchema.describe(
  'Absent keys are left alone; null goes back to the server default',
);

export const siteSettingsSchema = z.object({
  domain: z.string(),
  model: z
    .string()
    .nullable()
    .describe(
      '`provider:model` (openai, openai-responses, anthropic, openai-compatible, google, mistral, bedrock) or `builtin`; null: the server default (DOCENT_MODEL)',
    ),
  instructions: z.string().nullable().describe("Added to the model's system prompt"),
  starterQuestions: z
    .array(z.string())
    .nullable()
    .describe(
      'Questions the widget offers on an empty panel (`GET /v2/assistant/{domain}/config`); null: none',
    ),
  modelOptions: siteModelOptionsSchema
    .nullable()
    .describe(
      "Call options of the site's model (not the built-in answerer's); null: the provider's defaults",
    ),
  modelInUse: z
    .object({
      model: z.string().describe('`provider:model` or `builtin`'),
      problem: z
        .string()
        .nullable()
        .describe(
          "Why the site's `model` is not the one in use (its provider's credentials are not set on this server, or it does not parse); null: it is, or the site has none",
        ),
    })
    .nullable()
    .describe(
      "The model that writes the site's answers on the server that answered this request; null when the server does not say",
    ),
});

export const siteSettingsUpdateOperation: Operation = {
  method: 'patch',
  path: '/v1/admin/sites/{domain}/settings',
  summary: "Change a site's answer model, its options, custom instructions and starter questions",
  tags: ['Sites'],
  security: [{ adminKey: [] }],
  request: { params: domainParamSchema, body: jsonContent(siteSettingsUpdateBody) },
  responses: {
    200: { description: "The site's settings after the change", ...jsonContent(siteSettingsSchema) },
    ...errorResponses(400, 401, 404, 413, 415, 429),
  },
};

/**
 * Settings of the answer model (and the widget's starter questions) live apart from `PATCH /v1/admin/sites/{domain}`: they change how answers
 * are written, not what the site is, and an empty body reads them back.
 */
export function siteSettingsUpdateRoute(deps: AdminDeps): Hono<AdminEnv> {
  return new Hono<AdminEnv>().patch(
    '/v1/admin/sites/:domain/settings',
    validate('param', domainParamSchema),
    validate('json', siteSettingsUpdateBody),
    async (c) => {
      const { domain } = c.req.valid('param');
      const body = c.req.valid('json');
      const site = await requireOrganizationSite(deps.storage, c.get('admin').organization.id, domain);
      await updateSiteModelSettings(deps.storage, site.id, body);
      const settings = await getSiteModelSettings(deps.storage, site.id);
      if (!settings) throw new DocentError('not_found', `No site "${domain}" in this organization`);
      return c.json({ domain, ...settings, modelInUse: deps.modelInUse?.(settings.model) ?? null });
    },
  );
}
