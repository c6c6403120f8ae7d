import type { MiddlewareHandler } from 'hono';
import type { TrustProxy } from '../config.ts';
import { rateLimitHeaders } from '../limits/rate-limit-headers.ts';
import type { RateLimitStore } from '../limits/rate-limit-store.ts';
import type { Storage } from '../storage/database.ts';
import { ADMIN_KEY_PREFIX, ASSISTANT_KEY_PREFIX, findActiveKey, noteKeyUsed } from '../tenancy/api-keys.ts';
import { getOrganization } from '../tenancy/organizations.ts';
import { FALLBACK_PLAN, getOrganizationPlan } from '../tenancy/plans.ts';
import type { AdminEnv } from './admin-env.ts';
import { DocentError } from './errors.ts';

const MAX_AUTHORIZATION_CHARS = 256;
export const ADMIN_WINDOW_MS = 60_000;

/**
 * Authenticates `/v1/admin/*` with an organization's admin key (never an assistant key: those sit in
 * browsers) and applies the admin API's own per-organization rate limit.
 */
export function adminAuth(deps: {
  storage: Storage;
  store: RateLimitStore;
  trustProxy: TrustProxy;
}): MiddlewareHandler<AdminEnv> {
  return async (c, next) => {
    const authorization = c.req.header('Authorization');
    const match = authorization?.match(/^Bearer\s+(\S+)\s*$/i);
    if (!match?.[1]) {
      const what = authorization?.trim() ? 'Malformed Authorization header' : 'Missing admin key';
      throw new DocentError('unauthorized', `${what}: send "Authorization: Bearer svc_…"`, {
        headers: { 'WWW-Authenticate': 'Bearer' },
      });
    }
    const presented = match[1];
    if (presented.startsWith(ASSISTANT_KEY_PREFIX)) {
      throw new DocentError(
        'unauthorized',
        'Assistant keys (svc_dsc_…) are not accepted by the admin API; use an admin key',
        {
          headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
        },
      );
    }
    const key =
      presented.startsWith(ADMIN_KEY_PREFIX) && presented.length <= MAX_AUTHORIZATION_CHARS
        ? await findActiveKey(deps.storage, presented)
        : undefined;
    const organization =
      key?.kind === 'admin' ? await getOrganization(deps.storage, key.organization_id) : undefined;
    if (key?.kind !== 'admin' || !organization) {
      throw new DocentError('unauthorized', 'Invalid, revoked or expired admin key', {
        headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
      });
    }
    const plan = (await getOrganizationPlan(deps.storage, organization.id)) ?? FALLBACK_PLAN;
    const decision = await deps.store
      .hit([
        { key: `adm:{${organization.id}}`, limit: plan.adminRequestsPerMinute, windowMs: ADMIN_WINDOW_MS },
      ])
      .catch((error: unknown) => {
        throw new DocentError('unavailable', 'Rate limiting is unavailable; try again shortly', {
          cause: error,
          // As the assistant's 503 says it: a client that backs off by Retry-After gets one here too.
          headers: { 'Retry-After': '5' },
        });
      });
    const headers = rateLimitHeaders(decision);
    if (!decision.allowed) {
      throw new DocentError(
        'rate_limited',
        `Rate limit exceeded: ${plan.adminRequestsPerMinute} admin API requests per minute for this organization`,
        { headers },
      );
    }
    for (const [name, value] of Object.entries(headers)) c.header(name, value);
    await noteKeyUsed(deps.storage, key);
    c.set('admin', { organization, plan, keyId: key.id });
    await next();
  };
}
