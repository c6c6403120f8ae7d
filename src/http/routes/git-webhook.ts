import { Hono } from 'hono';
import { z } from 'zod';
import { handleGitPush, MAX_HOOK_BODY_BYTES } from '../../sources/git-webhook.ts';
import type { Storage } from '../../storage/database.ts';
import type { IngestionRunner } from '../../tenancy/ingestion-runner.ts';
import { domainSchema } from '../../tenancy/sites.ts';
import type { AppEnv } from '../app-env.ts';
import { requestHeader } from '../node-request.ts';
import { errorResponses, jsonContent, type Operation } from '../openapi.ts';
import { readBodyText } from '../request-body.ts';
import { validate } from '../validation.ts';

const paramsSchema = z.object({ domain: domainSchema });

export const gitPushResponseSchema = z.object({
  status: z.enum(['queued', 'ignored', 'pong']),
  statusId: z
    .string()
    .optional()
    .describe('The ingestion started, or the running one a new run will follow (`after`)'),
  after: z.boolean().optional().describe('An ingestion was running: the site is ingested again once it ends'),
  waiting: z
    .boolean()
    .optional()
    .describe(
      "The site's organization had as many ingestions running on this server as it may (3): the site is ingested when one of them ends",
    ),
  ignored: z
    .enum(['branch', 'event', 'deleted'])
    .optional()
    .describe("Not the source's branch (or a tag), not a push, or a deleted branch"),
  ref: z.string().nullable().optional(),
});

export const gitWebhookOperation: Operation = {
  method: 'post',
  path: '/v1/hooks/sites/{domain}/git',
  summary:
    "Push webhook of a site's git repository: GitHub (X-Hub-Signature-256, HMAC-SHA256 of the body) or GitLab (X-Gitlab-Token)",
  tags: ['Git webhooks'],
  request: {
    params: paramsSchema,
    body: { content: { 'application/json': { schema: z.object({ ref: z.string() }).passthrough() } } },
  },
  responses: {
    200: { description: "GitHub's ping, verified", ...jsonContent(gitPushResponseSchema) },
    202: {
      description: 'A push to the source branch: ingestion queued; anything else: ignored',
      ...jsonContent(gitPushResponseSchema),
    },
    ...errorResponses(400, 401, 404, 413),
  },
};

/** `POST /v1/hooks/sites/{domain}/git`: no admin key; the site's webhook secret signs the push. */
export function gitWebhookRoute(deps: { storage: Storage; ingestions: IngestionRunner }): Hono<AppEnv> {
  return new Hono<AppEnv>().post(
    '/v1/hooks/sites/:domain/git',
    validate('param', paramsSchema),
    async (c) => {
      const { domain } = c.req.valid('param');
      // The raw bytes: GitHub's signature is over the body exactly as sent.
      const body = await readBodyText(c, MAX_HOOK_BODY_BYTES);
      const outcome = await handleGitPush(deps, {
        domain,
        body,
        contentType: requestHeader(c, 'Content-Type'),
        headers: {
          githubSignature: requestHeader(c, 'X-Hub-Signature-256'),
          githubEvent: requestHeader(c, 'X-GitHub-Event'),
          gitlabToken: requestHeader(c, 'X-Gitlab-Token'),
          gitlabEvent: requestHeader(c, 'X-Gitlab-Event'),
        },
      });
      if (outcome.kind === 'ping') return c.json({ status: 'pong' as const }, 200);
      if (outcome.kind === 'ignored')
        return c.json({ status: 'ignored' as const, ignored: outcome.reason, ref: outcome.ref }, 202);
      if (outcome.kind === 'waiting') {
        c.get('logger').info({ domain }, "git push: waiting for one of its organization's ingestions to end");
        return c.json({ status: 'queued' as const, waiting: true }, 202);
      }
      c.get('logger').info({ domain, jobId: outcome.jobId, after: outcome.after }, 'git push: ingesting');
      return c.json({ status: 'queued' as const, statusId: outcome.jobId, after: outcome.after }, 202);
    },
  );
}
