import { z } from 'zod';
import { unfinishedIngestion } from '../ingest/jobs.ts';
import type { Storage } from '../storage/database.ts';
import { newId, nowIso } from '../storage/ids.ts';
import type { SitesTable } from '../storage/schema.ts';

export type Site = SitesTable;

/**
 * Whether Docent serves the site's stored pages to anyone (its page view, Markdown pages, `llms.txt`):
 * a site marked public, or one without a base URL of its own, whose citations link to that page view.
 * A site with a base URL that is not public keeps its stored docs behind its keys (the page and search
 * APIs, MCP): its docs may be private, and its readers follow citations to its own site.
 */
export function publishesPages(site: Pick<Site, 'base_url' | 'public'>): boolean {
  return site.public === 1 || site.base_url === null || site.base_url === '';
}

/**
 * A domain identifier is the subdomain part of a hosted docs address, so it follows DNS label rules:
 * lowercase letters, digits and inner hyphens, 1–63 characters.
 */
export const MAX_DOMAIN_LENGTH = 63;
/** Longest name of an organization, a site or a key. */
export const MAX_NAME_LENGTH = 200;
/**
 * The `maxlength` of a console input for a name: a browser counts UTF-16 units, two for an emoji, where
 * the server counts characters (code points), so a name of MAX_NAME_LENGTH emoji must still fit. The
 * server says when a name is too long.
 */
export const MAX_NAME_INPUT_UNITS = 2 * MAX_NAME_LENGTH;

/**
 * Characters a name shown on one line must not hold: control characters and line breaks (a newline in
 * a name forges a row of the CLI's listings) and the bidirectional embeddings, overrides and isolates
 * (U+202E shows "gepj.exe" as "exe.jpeg"), which no name needs to be read right.
 */
const NOT_ONE_LINE = /[\p{Cc}\p{Zl}\p{Zp}\u202a-\u202e\u2066-\u2069]/u;

/** A label an owner types (a site's or a key's name): trimmed, 1 to `max` characters, one line. */
export const labelSchema = (max: number) =>
  z
    .string()
    .trim()
    .min(1, 'must not be empty or only spaces')
    // Characters as people count them (code points): an emoji is one, not the two UTF-16 units it takes.
    .refine((name) => codePoints(name) <= max, `must be at most ${max} characters`)
    .refine((name) => !NOT_ONE_LINE.test(name), 'must not hold control characters or line breaks');

function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/**
 * A site's display name: the widget's title ("Ask <name>") and the console's. Trimmed, as the console's
 * form trims it, so no writer stores a blank name the console then refuses to save the settings with.
 */
export const siteNameSchema = labelSchema(MAX_NAME_LENGTH);
export const domainSchema = z
  .string()
  .min(1)
  .max(MAX_DOMAIN_LENGTH)
  .regex(/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/, 'must be lowercase letters, digits and inner hyphens');

/** Most browser origins one site can allow; a longer list is a sign of a mistake, not a need. */
export const MAX_ALLOWED_ORIGINS = 50;
export const MAX_ORIGIN_LENGTH = 253 + 'https://'.length + ':65535'.length;

/**
 * A browser origin, stored exactly as browsers send it (scheme, host and optional port) so that it is
 * compared exactly: an origin written another way that means the same (`HTTPS://Docs.Example.com`, a
 * trailing `/` as the address bar shows it, the scheme's own port) is stored as browsers send it.
 */
export const originSchema = z
  .string()
  .max(MAX_ORIGIN_LENGTH)
  .transform((value, ctx) => {
    // "https://*.example.com" would be stored and then match no page at all.
    if (value.includes('*')) {
      ctx.addIssue({
        code: 'custom',
        message:
          'must be one exact origin: wildcards are not supported, list each origin (https://docs.example.com)',
      });
      return z.NEVER;
    }
    const problem = originProblem(value);
    if (problem !== null) {
      ctx.addIssue({ code: 'custom', message: problem });
      return z.NEVER;
    }
    return new URL(value).origin;
  });

/** Why `value` is not an origin, in the owner's terms; null when it is one. */
function originProblem(value: string): string | null {
  const example = 'such as https://docs.example.com';
  if (/[\s\p{Cc}]/u.test(value)) return `must be an origin ${example}, with no spaces`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `must be an origin ${example}`;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return `must be an http: or https: origin ${example}`;
  if (url.username !== '' || url.password !== '')
    return `must be an origin ${example}, with no user or password`;
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '' || /[?#]/.test(value))
    return `must be an origin ${example}: scheme and host only, no path`;
  return null;
}

export const allowedOriginsSchema = z
  .array(originSchema)
  .max(MAX_ALLOWED_ORIGINS)
  .transform((origins) => [...new Set(origins)]);

/** Longest site base URL: an address of a docs site, not a document. */
export const MAX_BASE_URL_LENGTH = 1024;
export const BASE_URL_MESSAGE = 'must be an http: or https: URL such as https://docs.example.com';

// Readers get the base URL as the href of every citation, so a `javascript:` or `data:` URL would run in
// their browser. The stored string is the checked one: URL parsers drop whitespace and control characters
// (`java\tscript:`), so a string holding any is refused rather than read one way here and another there.
const isHttpUrl = (value: string): boolean => {
  if (!/^https?:\/\//i.test(value) || /[\s\p{Cc}]/u.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
  } catch {
    return false;
  }
};

const hasCredentials = (value: string): boolean => {
  try {
    const url = new URL(value);
    return url.username !== '' || url.password !== '';
  } catch {
    return false;
  }
};

/** A site's base URL for deep links, stored without trailing slashes. */
export const baseUrlSchema = z
  .string()
  .max(MAX_BASE_URL_LENGTH)
  .refine(isHttpUrl, { message: BASE_URL_MESSAGE })
  // Every citation is the base URL followed by a page's path: after a query or a fragment the path would
  // land inside it (`https://d.example/?ref=ai/guides/x`), and a user name or password would be in every link.
  // A hash router's base (`https://d.example/#/`, as Docsify publishes pages) is the one fragment kept:
  // the page's path then goes inside it, where that router reads it.
  .refine((value) => !/\?/.test(value) && !/#(?!\/?$)/.test(value), {
    message:
      "must have no query (?) or fragment (#), except a hash router's trailing # or #/: page paths are added after it",
  })
  .refine((value) => !hasCredentials(value), {
    message: 'must have no user name or password: every reader sees it in the links',
  })
  .transform((value) => value.replace(/\/+$/, ''));

export class InvalidSiteError extends Error {
  override name = 'InvalidSiteError';
}

/** Checks a base URL for storage; null and undefined mean none. Throws InvalidSiteError naming `baseUrl`. */
export function parseBaseUrl(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  const parsed = baseUrlSchema.safeParse(value);
  if (!parsed.success)
    throw new InvalidSiteError(`baseUrl ${parsed.error.issues[0]?.message ?? BASE_URL_MESSAGE}`);
  return parsed.data;
}

function parseAllowedOriginsJson(json: string): string {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new InvalidSiteError('allowedOrigins must be a JSON array of origins');
  }
  const parsed = allowedOriginsSchema.safeParse(value);
  if (!parsed.success)
    throw new InvalidSiteError(`allowedOrigins ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  return JSON.stringify(parsed.data);
}

export function siteAllowedOrigins(site: Pick<Site, 'allowed_origins'>): string[] {
  return JSON.parse(site.allowed_origins) as string[];
}

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
    allowedOrigins?: string[];
  },
): Promise<Site> {
  const domain = domainSchema.parse(input.domain);
  const origins = allowedOriginsSchema.parse(input.allowedOrigins ?? []);
  const row: Site = {
    id: newId('site'),
    organization_id: input.organizationId,
    domain,
    name: input.name ?? domain,
    docs_dir: input.docsDir ?? null,
    base_url: parseBaseUrl(input.baseUrl),
    index_generation: 0,
    created_at: nowIso(),
    allowed_origins: JSON.stringify(origins),
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
  // No site has a domain the schema refuses, and one from a URL may hold what PostgreSQL cannot take
  // as text (`%00`): not looked up at all.
  if (!domainSchema.safeParse(domain).success) return undefined;
  return storage.db.selectFrom('sites').selectAll().where('domain', '=', domain).executeTakeFirst();
}

export async function getSite(storage: Storage, id: string): Promise<Site | undefined> {
  return storage.db.selectFrom('sites').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateSite(
  storage: Storage,
  id: string,
  patch: Partial<Pick<Site, 'name' | 'docs_dir' | 'base_url' | 'allowed_origins' | 'public'>>,
): Promise<void> {
  if (Object.keys(patch).length === 0) return;
  // Every writer (admin API, CLI, tests) goes through here, so the rules hold whoever calls.
  const checked = { ...patch };
  if (patch.base_url !== undefined) checked.base_url = parseBaseUrl(patch.base_url);
  if (patch.allowed_origins !== undefined)
    checked.allowed_origins = parseAllowedOriginsJson(patch.allowed_origins);
  await storage.db.updateTable('sites').set(checked).where('id', '=', id).execute();
}

export async function getIndexGeneration(storage: Storage, siteId: string): Promise<number | undefined> {
  const row = await storage.db
    .selectFrom('sites')
    .select('index_generation')
    .where('id', '=', siteId)
    .executeTakeFirst();
  return row?.index_generation;
}

/** A site of this organization by domain; another organization's site is indistinguishable from none. */
export async function getOrganizationSite(
  storage: Storage,
  organizationId: string,
  domain: string,
): Promise<Site | undefined> {
  return storage.db
    .selectFrom('sites')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('domain', '=', domain)
    .executeTakeFirst();
}

export async function listSites(storage: Storage, organizationId?: string): Promise<Site[]> {
  let query = storage.db.selectFrom('sites').selectAll().orderBy('domain');
  if (organizationId !== undefined) query = query.where('organization_id', '=', organizationId);
  return query.execute();
}

/** What `deleteSite` did: deleted, no such site, or refused for a server's ingestion of it (its job). */
export type SiteDeletion = 'deleted' | 'missing' | { ingesting: string };

/**
 * Deletes the site with its pages, keys, threads and ingestion jobs (foreign keys cascade), unless a
 * server's ingestion of it is queued or running: that one reads its folder or clone, and its job would
 * go with the site while it went on. The job table is read under the site's row lock in the delete's own
 * transaction, so a job created at the same moment is either seen here or refused its insert by the
 * site's absence (a 404 for the ingestion request), never deleted unseen with the site.
 */
export async function deleteSite(
  storage: Storage,
  organizationId: string,
  siteId: string,
): Promise<SiteDeletion> {
  return storage.db.transaction().execute(async (trx) => {
    let site = trx
      .selectFrom('sites')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('id', '=', siteId);
    // PostgreSQL: waits for a job insert holding the row (its foreign key check), whose job the next
    // statement then sees. SQLite has one writer at a time.
    if (storage.dialect === 'postgres') site = site.forUpdate();
    if ((await site.executeTakeFirst()) === undefined) return 'missing';
    const job = await unfinishedIngestion({ db: trx }, siteId, { serversOnly: true });
    if (job !== undefined) return { ingesting: job };
    // SQLite leaves cascades to the foreign_keys pragma, which storage turns on for every connection.
    const result = await trx.deleteFrom('sites').where('id', '=', siteId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0 ? 'deleted' : 'missing';
  });
}
