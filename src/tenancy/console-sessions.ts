import crypto from 'node:crypto';
import type { Storage } from '../storage/database.ts';
import { nowIso, randomBase62 } from '../storage/ids.ts';
import { ADMIN_KEY_PREFIX, type ApiKey, findActiveKey, hashKey, noteKeyUsed } from './api-keys.ts';
import { getOrganization, type Organization } from './organizations.ts';

/** How long a console sign-in lasts; signing in again starts a new one. */
export const CONSOLE_SESSION_HOURS = 12;
/** Session secrets: 40 base62 characters (about 238 bits), stored only as their SHA-256. */
const SESSION_SECRET_CHARS = 40;
/** Longest key a sign-in form may send: longer is not a key. */
export const MAX_SIGN_IN_KEY_CHARS = 256;

export interface ConsoleSession {
  organization: Organization;
  key: ApiKey;
  csrfToken: string;
  expiresAt: string;
}

export class ConsoleSignInError extends Error {
  override name = 'ConsoleSignInError';
}

/**
 * Exchanges an admin key for a console session. Returns the secret for the cookie (never stored) and
 * the session. An assistant key, a revoked or expired key, or anything else is refused alike.
 */
export async function signInToConsole(
  storage: Storage,
  presented: string,
  now = new Date(),
): Promise<{ secret: string; session: ConsoleSession }> {
  const candidate = presented.trim();
  const key =
    candidate.startsWith(ADMIN_KEY_PREFIX) && candidate.length <= MAX_SIGN_IN_KEY_CHARS
      ? await findActiveKey(storage, candidate, now)
      : undefined;
  const organization =
    key?.kind === 'admin' ? await getOrganization(storage, key.organization_id) : undefined;
  if (!key || key.kind !== 'admin' || !organization)
    throw new ConsoleSignInError('Invalid, revoked or expired admin key');
  const secret = randomBase62(SESSION_SECRET_CHARS);
  const csrfToken = randomBase62(SESSION_SECRET_CHARS);
  const expiresAt = new Date(now.getTime() + CONSOLE_SESSION_HOURS * 3_600_000).toISOString();
  await storage.db
    .insertInto('console_sessions')
    .values({
      id_hash: hashKey(secret),
      organization_id: organization.id,
      key_id: key.id,
      csrf_token: csrfToken,
      created_at: nowIso(),
      expires_at: expiresAt,
    })
    .execute();
  // Expired sessions go when anyone signs in: no job needed for a table this small.
  await storage.db.deleteFrom('console_sessions').where('expires_at', '<', now.toISOString()).execute();
  // Signing in is a use of the key: the keys screen would otherwise show the key in hand as never used.
  await noteKeyUsed(storage, key, now.getTime());
  return { secret, session: { organization, key, csrfToken, expiresAt } };
}

/** The live session a cookie's secret belongs to: not expired, its key neither revoked nor expired. */
export async function findConsoleSession(
  storage: Storage,
  secret: string,
  now = new Date(),
): Promise<ConsoleSession | undefined> {
  if (secret.length !== SESSION_SECRET_CHARS) return undefined;
  const session = await storage.db
    .selectFrom('console_sessions')
    .select(['key_id', 'csrf_token', 'expires_at'])
    .where('id_hash', '=', hashKey(secret))
    .executeTakeFirst();
  if (!session || new Date(session.expires_at) <= now) return undefined;
  const key = await storage.db
    .selectFrom('api_keys')
    .selectAll()
    .where('id', '=', session.key_id)
    .executeTakeFirst();
  if (!key || key.revoked_at !== null || (key.expires_at !== null && new Date(key.expires_at) <= now))
    return undefined;
  const csrfToken = session.csrf_token;
  const expiresAt = session.expires_at;
  const organization = await getOrganization(storage, key.organization_id);
  if (!organization) return undefined;
  // The console acts with the key that opened the session, so its use counts as the key's. A failed
  // note (a busy database) must not fail the page: the next use records it.
  await noteKeyUsed(storage, key, now.getTime()).catch(() => {});
  return { organization, key, csrfToken, expiresAt };
}

export async function signOutOfConsole(storage: Storage, secret: string): Promise<void> {
  await storage.db.deleteFrom('console_sessions').where('id_hash', '=', hashKey(secret)).execute();
}

/** Constant-time comparison of a form's CSRF token with the session's. */
export function csrfTokenMatches(session: ConsoleSession, presented: string | undefined): boolean {
  if (presented === undefined) return false;
  const a = Buffer.from(session.csrfToken);
  const b = Buffer.from(presented);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}
