import crypto from 'node:crypto';
import type { Storage } from '../storage/database.ts';
import { newId, nowIso, randomBase62 } from '../storage/ids.ts';
import type { ApiKeysTable } from '../storage/schema.ts';

export type ApiKey = ApiKeysTable;
export type ApiKeyKind = ApiKey['kind'];

export const ASSISTANT_KEY_PREFIX = 'svc_dsc_';
export const ADMIN_KEY_PREFIX = 'svc_';
/** 32 base62 characters ≈ 190 bits: enough that a fast hash (not a password KDF) is the right store. */
const SECRET_LENGTH = 32;

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
  },
): Promise<CreatedKey> {
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
  await storage.db.insertInto('api_keys').values(record).execute();
  return { key, record };
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
  const row = await storage.db
    .selectFrom('api_keys')
    .selectAll()
    .where('key_hash', '=', hash)
    .executeTakeFirst();
  if (!row) return undefined;
  const a = Buffer.from(row.key_hash, 'hex');
  const b = Buffer.from(hash, 'hex');
  if (a.length !== b.length || !crypto.timingSafeEqual(a, b)) return undefined;
  if (row.revoked_at !== null) return undefined;
  if (row.expires_at !== null && new Date(row.expires_at) <= now) return undefined;
  return row;
}

export async function touchApiKey(storage: Storage, id: string): Promise<void> {
  await storage.db.updateTable('api_keys').set({ last_used_at: nowIso() }).where('id', '=', id).execute();
}
