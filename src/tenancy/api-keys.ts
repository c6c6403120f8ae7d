import crypto from 'node:crypto';
import { withOrganizationLock } from '../limits/organization-lock.ts';
import { siteGoneOr } from '../storage/constraint-violations.ts';
import type { Storage } from '../storage/database.ts';
import { newId, nowIso, randomBase62 } from '../storage/ids.ts';
import type { ApiKeysTable } from '../storage/schema.ts';
import { labelSchema, MAX_NAME_LENGTH } from './sites.ts';

export type ApiKey = ApiKeysTable;
export type ApiKeyKind = ApiKey['kind'];

export const ASSISTANT_KEY_PREFIX = 'svc_dsc_';
export const ADMIN_KEY_PREFIX = 'svc_';
/** 32 base62 characters ≈ 190 bits: enough that a fast hash (not a password KDF) is the right store. */
const SECRET_LENGTH = 32;

/**
 * Keys an organization can create per rolling hour (revoked ones count): a leaked admin key cannot
 * mint keys without bound, and a script stuck in a loop stops early.
 */
export const MAX_KEYS_CREATED_PER_HOUR = 30;
const HOUR_MS = 3_600_000;
/** `last_used_at` is written at most this often per key, so a busy key does not cost a write per request. */
export const LAST_USED_RESOLUTION_MS = 60_000;

export class KeyCreationLimitError extends Error {
  override name = 'KeyCreationLimitError';
  constructor(readonly retryAfterSeconds: number) {
    super(`At most ${MAX_KEYS_CREATED_PER_HOUR} keys can be created per organization per hour`);
  }
}

/**
 * A key's label, as the admin API, the CLI and the console take it: trimmed, 1 to 200 characters, one
 * line (printed in `keys list` rows, where a line break would forge a row).
 */
export const keyNameSchema = labelSchema(MAX_NAME_LENGTH);

export function hashKey(key: string): string {
  return crypto.createHash('sha256').update(key).digest('hex');
}

export interface CreatedKey {
  key: string;
  record: ApiKey;
}

export async function createApiKey(
  storage: Storage,
  input: {
    organizationId: string;
    siteId: string | null;
    kind: ApiKeyKind;
    name?: string;
    expiresAt?: string | null;
    /**
     * Not held to `MAX_KEYS_CREATED_PER_HOUR`: only for the key the server makes for itself at each
     * start (the demo page's), which no caller asked for; the cap is on what an organization creates.
     */
    uncapped?: boolean;
  },
): Promise<CreatedKey> {
  if (input.kind === 'assistant' && input.siteId === null) throw new Error('an assistant key needs a site');
  if (input.kind === 'admin' && input.siteId !== null) throw new Error('an admin key is organization-wide');
  const prefix = input.kind === 'assistant' ? ASSISTANT_KEY_PREFIX : ADMIN_KEY_PREFIX;
  const key = `${prefix}${randomBase62(SECRET_LENGTH)}`;
  const record: ApiKey = {
    id: newId('key'),
    organization_id: input.organizationId,
    site_id: input.siteId,
    kind: input.kind,
    name: input.name ?? null,
    prefix,
    last_four: key.slice(-4),
    key_hash: hashKey(key),
    created_at: nowIso(),
    expires_at: input.expiresAt ?? null,
    revoked_at: null,
    last_used_at: null,
  };
  // Count and insert under the organization lock, so concurrent creators cannot both pass the cap.
  await withOrganizationLock(storage, input.organizationId, async (db) => {
    const since = new Date(Date.now() - HOUR_MS).toISOString();
    const recent = await db
      .selectFrom('api_keys')
      .select('created_at')
      .where('organization_id', '=', input.organizationId)
      .where('created_at', '>', since)
      .orderBy('created_at')
      .execute();
    if (!input.uncapped && recent.length >= MAX_KEYS_CREATED_PER_HOUR) {
      const oldest = recent[recent.length - MAX_KEYS_CREATED_PER_HOUR]?.created_at ?? since;
      const retryMs = new Date(oldest).getTime() + HOUR_MS - Date.now();
      throw new KeyCreationLimitError(Math.max(1, Math.ceil(retryMs / 1000)));
    }
    try {
      await db.insertInto('api_keys').values(record).execute();
    } catch (error) {
      throw siteGoneOr(error);
    }
  });
  return { key, record };
}

/** What listings show of a key: never the secret or its hash. */
export interface KeySummary {
  id: string;
  kind: ApiKeyKind;
  name: string | null;
  siteId: string | null;
  /** e.g. `svc_dsc_…a1B2`. */
  display: string;
  prefix: string;
  lastFour: string;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export function keySummary(key: ApiKey): KeySummary {
  return {
    id: key.id,
    kind: key.kind,
    name: key.name,
    siteId: key.site_id,
    display: `${key.prefix}…${key.last_four}`,
    prefix: key.prefix,
    lastFour: key.last_four,
    createdAt: key.created_at,
    expiresAt: key.expires_at,
    lastUsedAt: key.last_used_at,
    revokedAt: key.revoked_at,
  };
}

export async function listApiKeys(
  storage: Storage,
  organizationId: string,
  filter: { siteId?: string; kind?: ApiKeyKind } = {},
): Promise<ApiKey[]> {
  let query = storage.db
    .selectFrom('api_keys')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .orderBy('created_at')
    .orderBy('id');
  if (filter.siteId !== undefined) query = query.where('site_id', '=', filter.siteId);
  if (filter.kind !== undefined) query = query.where('kind', '=', filter.kind);
  return query.execute();
}

export async function getApiKey(
  storage: Storage,
  organizationId: string,
  id: string,
): Promise<ApiKey | undefined> {
  return storage.db
    .selectFrom('api_keys')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Revokes the key (idempotent: a revoked key keeps its first revocation time). */
export async function revokeApiKey(
  storage: Storage,
  organizationId: string,
  id: string,
): Promise<ApiKey | undefined> {
  await storage.db
    .updateTable('api_keys')
    .set({ revoked_at: nowIso() })
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .execute();
  return getApiKey(storage, organizationId, id);
}

/**
 * Finds the live key a presented secret belongs to. The lookup goes through the hash index; the
 * final comparison is constant-time so response timing says nothing about how much of a hash matched.
 */
export async function findActiveKey(
  storage: Storage,
  presented: string,
  now = new Date(),
): Promise<ApiKey | undefined> {
  const hash = hashKey(presented);
  const row = await findKeyByHash(storage, hash);
  return row !== undefined && keyIsActive(row, hash, now) ? row : undefined;
}

/** The key row stored under `hash`, live or not (`keyIsActive` says which). */
export async function findKeyByHash(storage: Storage, hash: string): Promise<ApiKey | undefined> {
  return storage.db.selectFrom('api_keys').selectAll().where('key_hash', '=', hash).executeTakeFirst();
}

/** Whether `row` is the key hashed to `hash` and is neither revoked nor expired at `now`. */
export function keyIsActive(row: ApiKey, hash: string, now = new Date()): boolean {
  const a = Buffer.from(row.key_hash, 'hex');
  const b = Buffer.from(hash, 'hex');
  if (a.length !== b.length || !crypto.timingSafeEqual(a, b)) return false;
  if (row.revoked_at !== null) return false;
  return row.expires_at === null || new Date(row.expires_at) > now;
}

export async function touchApiKey(storage: Storage, id: string, at = nowIso()): Promise<void> {
  await storage.db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
}

/**
 * Records use of a key unless it was recorded within the last `LAST_USED_RESOLUTION_MS`. The row's
 * `last_used_at` is updated too: a cached row (tenancy/tenancy-cache.ts) then stops further writes.
 */
export async function noteKeyUsed(storage: Storage, key: ApiKey, now = Date.now()): Promise<void> {
  if (key.last_used_at !== null && now - new Date(key.last_used_at).getTime() < LAST_USED_RESOLUTION_MS)
    return;
  key.last_used_at = new Date(now).toISOString();
  await touchApiKey(storage, key.id, key.last_used_at);
}
