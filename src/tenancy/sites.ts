import { z } from 'zod';
import type { Storage } from '../storage/database.ts';
import { newId, nowIso } from '../storage/ids.ts';
import type { SitesTable } from '../storage/schema.ts';

export type Site = SitesTable;

/**
 * A domain identifier is the subdomain part of a hosted docs address, so it follows DNS label rules:
 * lowercase letters, digits and inner hyphens, 1–63 characters.
 */
export const MAX_DOMAIN_LENGTH = 63;
export const domainSchema = z
  .string()
  .min(1)
  .max(MAX_DOMAIN_LENGTH)
  .regex(/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/, 'must be lowercase letters, digits and inner hyphens');

export class DomainTakenError extends Error {
  override name = 'DomainTakenError';
}

export async function createSite(
  storage: Storage,
  input: {
    organizationId: string;
    domain: string;
    name?: string;
    docsDir?: string | null;
    baseUrl?: string | null;
  },
): Promise<Site> {
  const domain = domainSchema.parse(input.domain);
  const row: Site = {
    id: newId('site'),
    organization_id: input.organizationId,
    domain,
    name: input.name ?? domain,
    docs_dir: input.docsDir ?? null,
    base_url: input.baseUrl ?? null,
    index_generation: 0,
    created_at: nowIso(),
  };
  const existing = await getSiteByDomain(storage, domain);
  if (existing) throw new DomainTakenError(`Site domain "${domain}" is already taken`);
  try {
    await storage.db.insertInto('sites').values(row).execute();
  } catch (error) {
    // Two creators racing past the check above: the unique index decides.
    if (await getSiteByDomain(storage, domain))
      throw new DomainTakenError(`Site domain "${domain}" is already taken`);
    throw error;
  }
  return row;
}

export async function getSiteByDomain(storage: Storage, domain: string): Promise<Site | undefined> {
  return storage.db.selectFrom('sites').selectAll().where('domain', '=', domain).executeTakeFirst();
}

export async function getSite(storage: Storage, id: string): Promise<Site | undefined> {
  return storage.db.selectFrom('sites').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateSite(
  storage: Storage,
  id: string,
  patch: Partial<Pick<Site, 'name' | 'docs_dir' | 'base_url'>>,
): Promise<void> {
  if (Object.keys(patch).length === 0) return;
  await storage.db.updateTable('sites').set(patch).where('id', '=', id).execute();
}

export async function getIndexGeneration(storage: Storage, siteId: string): Promise<number | undefined> {
  const row = await storage.db
    .selectFrom('sites')
    .select('index_generation')
    .where('id', '=', siteId)
    .executeTakeFirst();
  return row?.index_generation;
}
