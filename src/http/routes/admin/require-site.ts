import type { Storage } from '../../../storage/database.ts';
import { getOrganizationSite, type Site } from '../../../tenancy/sites.ts';
import { DocentError } from '../../errors.ts';

/** The organization's site with this domain; any other organization's site is simply not found. */
export async function requireOrganizationSite(
  storage: Storage,
  organizationId: string,
  domain: string,
): Promise<Site> {
  const site = await getOrganizationSite(storage, organizationId, domain);
  if (!site) throw new DocentError('not_found', `No site "${domain}" in this organization`);
  return site;
}
