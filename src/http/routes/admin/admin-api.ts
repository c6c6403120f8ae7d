import { Hono } from 'hono';
import type { TrustProxy } from '../../../config.ts';
import type { RateLimitStore } from '../../../limits/rate-limit-store.ts';
import type { TenancyCache } from '../../../tenancy/tenancy-cache.ts';
import { adminAuth } from '../../admin-auth.ts';
import type { AdminEnv } from '../../admin-env.ts';
import type { Operation } from '../../openapi.ts';
import { limitBody } from '../../request-body.ts';
import { gitWebhookOperation } from '../git-webhook.ts';
import type { AdminDeps } from './admin-deps.ts';
import {
  analyticsConversationsOperation,
  analyticsConversationsRoute,
  deleteThreadOperation,
  deleteThreadRoute,
} from './analytics-conversations.ts';
import { exportRoutes } from './analytics-export.ts';
import {
  analyticsFeedbackOperation,
  analyticsFeedbackRoute,
  resolveFeedbackOperation,
  resolveFeedbackRoute,
} from './analytics-feedback.ts';
import { gapsOperation, gapsRoute, topQuestionsOperation, topQuestionsRoute } from './analytics-groups.ts';
import { analyticsOverviewOperation, analyticsOverviewRoute } from './analytics-overview.ts';
import { analyticsPagesOperation, analyticsPagesRoute } from './analytics-pages.ts';
import {
  getRetentionOperation,
  getRetentionRoute,
  putRetentionOperation,
  putRetentionRoute,
} from './analytics-retention.ts';
import { createKeyOperation, createKeyRoute } from './create-key.ts';
import { createSiteOperation, createSiteRoute } from './create-site.ts';
import { deleteSiteOperation, deleteSiteRoute } from './delete-site.ts';
import { getIngestionOperation, getIngestionRoute } from './get-ingestion.ts';
import { getSiteOperation, getSiteRoute } from './get-site.ts';
import { getThreadOperation, getThreadRoute } from './get-thread.ts';
import { getUsageOperation, getUsageRoute } from './get-usage.ts';
import { listIngestionsOperation, listIngestionsRoute } from './list-ingestions.ts';
import { listKeysOperation, listKeysRoute } from './list-keys.ts';
import { listSitesOperation, listSitesRoute } from './list-sites.ts';
import { listThreadsOperation, listThreadsRoute } from './list-threads.ts';
import { revokeKeyOperation, revokeKeyRoute } from './revoke-key.ts';
import { rotateWebhookSecretOperation, rotateWebhookSecretRoute } from './rotate-webhook-secret.ts';
import { siteSettingsUpdateOperation, siteSettingsUpdateRoute } from './site-settings-update.ts';
import { triggerIngestionOperation, triggerIngestionRoute } from './trigger-ingestion.ts';
import { updateSiteOperation, updateSiteRoute } from './update-site.ts';

/** Every admin route with the operation that documents it: the OpenAPI document is built from this list. */
const adminRoutes: [Operation, (deps: AdminDeps) => Hono<AdminEnv>][] = [
  [createSiteOperation, createSiteRoute],
  [listSitesOperation, listSitesRoute],
  [getSiteOperation, getSiteRoute],
  [updateSiteOperation, updateSiteRoute],
  [siteSettingsUpdateOperation, siteSettingsUpdateRoute],
  [deleteSiteOperation, deleteSiteRoute],
  [rotateWebhookSecretOperation, rotateWebhookSecretRoute],
  [createKeyOperation, createKeyRoute],
  [listKeysOperation, listKeysRoute],
  [revokeKeyOperation, revokeKeyRoute],
  [triggerIngestionOperation, triggerIngestionRoute],
  [getIngestionOperation, getIngestionRoute],
  [listIngestionsOperation, listIngestionsRoute],
  [getUsageOperation, getUsageRoute],
  [listThreadsOperation, listThreadsRoute],
  [getThreadOperation, getThreadRoute],
  [deleteThreadOperation, deleteThreadRoute],
  [analyticsOverviewOperation, analyticsOverviewRoute],
  [analyticsConversationsOperation, analyticsConversationsRoute],
  [gapsOperation, gapsRoute],
  [topQuestionsOperation, topQuestionsRoute],
  [analyticsPagesOperation, analyticsPagesRoute],
  [analyticsFeedbackOperation, analyticsFeedbackRoute],
  [resolveFeedbackOperation, resolveFeedbackRoute],
  ...exportRoutes,
  [getRetentionOperation, getRetentionRoute],
  [putRetentionOperation, putRetentionRoute],
];

/** The admin routes, and the git push webhook that stands in for an admin's re-ingestion (mounted in app.ts). */
export const adminOperations: Operation[] = [
  ...adminRoutes.map(([operation]) => operation),
  gitWebhookOperation,
];

/**
 * Largest admin request body: a site's settings (instructions of 4,000 characters, starter questions,
 * allowed origins) or a new key's name fit many times over.
 */
export const MAX_ADMIN_BODY_BYTES = 64 * 1024;

export function adminApi(
  deps: AdminDeps & { store: RateLimitStore; trustProxy: TrustProxy; tenancy: TenancyCache },
): Hono<AdminEnv> {
  const api = new Hono<AdminEnv>();
  api.use('/v1/admin/*', adminAuth(deps));
  api.use('/v1/admin/*', limitBody(MAX_ADMIN_BODY_BYTES));
  // Keys, sites and plans changed here take effect at once in this process's assistant route.
  api.use('/v1/admin/*', async (c, next) => {
    await next();
    if (c.req.method !== 'GET' && c.res.status < 400) deps.tenancy.clear();
    // Admin answers hold secrets (a new key) and an organization's data: no cache keeps them.
    if (!c.res.headers.has('Cache-Control')) c.res.headers.set('Cache-Control', 'no-store');
  });
  for (const [, route] of adminRoutes) api.route('/', route(deps));
  return api;
}
