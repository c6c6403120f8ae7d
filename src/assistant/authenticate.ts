import { DomainError } from '../errors/domain-error.ts';
import {
  ADMIN_KEY_PREFIX,
  type ApiKey,
  ASSISTANT_KEY_PREFIX,
  hashKey,
  keyIsActive,
} from '../tenancy/api-keys.ts';
import type { Site } from '../tenancy/sites.ts';
import type { TenancyCache } from '../tenancy/tenancy-cache.ts';

export interface AssistantCaller {
  /** Null for a caller without a key on a route that lets anyone read a public site. */
  key: ApiKey | null;
  site: Site;
}

/** Longest Authorization value worth hashing; anything longer cannot be one of our keys. */
const MAX_AUTHORIZATION_CHARS = 256;

/**
 * Order matters for what a caller can learn: the key is checked before the domain, so without a
 * valid key nobody can probe which domains exist.
 */
export async function authenticateAssistant(
  tenancy: TenancyCache,
  authorization: string | undefined,
  domain: string,
  /** A request without any Authorization may read a site marked public (the MCP server, search). */
  options: { allowPublic?: boolean } = {},
): Promise<AssistantCaller> {
  if (authorization === undefined && options.allowPublic === true) {
    const site = await tenancy.siteByDomain(domain);
    if (site?.public === 1) return { key: null, site };
  }
  const match = authorization?.match(/^Bearer\s+(\S+)\s*$/i);
  if (!match?.[1]) {
    const what = authorization?.trim() ? 'Malformed Authorization header' : 'Missing API key';
    throw new DomainError('unauthenticated', `${what}: send "Authorization: Bearer svc_dsc_…"`, {
      reason: 'missing',
    });
  }
  const presented = match[1];
  const hash =
    presented.startsWith(ASSISTANT_KEY_PREFIX) && presented.length <= MAX_AUTHORIZATION_CHARS
      ? hashKey(presented)
      : undefined;
  const row = hash === undefined ? undefined : await tenancy.keyByHash(hash);
  const key = row !== undefined && hash !== undefined && keyIsActive(row, hash) ? row : undefined;
  if (key?.kind !== 'assistant') {
    // Said from the prefix alone, as the admin API says it of assistant keys: nothing is learnt of the key.
    const message =
      presented.startsWith(ADMIN_KEY_PREFIX) && !presented.startsWith(ASSISTANT_KEY_PREFIX)
        ? `Admin keys (${ADMIN_KEY_PREFIX}…) are not accepted here; use the site's assistant key (${ASSISTANT_KEY_PREFIX}…)`
        : 'Invalid, revoked or expired assistant API key';
    throw new DomainError('unauthenticated', message, { reason: 'invalid' });
  }
  const site = await tenancy.siteByDomain(domain);
  if (!site) throw new DomainError('not_found', `No documentation site "${domain}"`);
  if (key.site_id !== site.id) {
    throw new DomainError('forbidden', `This assistant key is not valid for site "${domain}"`);
  }
  return { key, site };
}
